"""Static Programs: building, printing, verify, feeds/fetches, fc + startup, the executor's plans."""
import numpy as np
import pytest

import runtime as rt
from runtime.static import InputSpec
from static_helpers import building
from error_helpers import notes


@pytest.fixture
def progs(static_programs):
    return static_programs


def test_data_unknown_dims_and_operators_append_ops(progs):
    main, _ = progs
    x = rt.static.data("x", [None, 3], "float32")
    assert x.shape == [-1, 3] and x.dtype == "float32"
    y = (x * 2.0 + 1.0) @ rt.ones([3, 2]) - x.sum()
    types = [op.type for op in main.global_block().ops]
    assert "multiply" in types and "matmul" in types and "reduce_sum" in types
    assert y.shape == [-1, 2]
    exe = rt.static.Executor()
    for n in (1, 5):
        xa = np.arange(3 * n, dtype="float32").reshape(n, 3)
        out, = exe.run(main, feed={"x": xa}, fetch_list=[y])
        np.testing.assert_allclose(out, (xa * 2 + 1) @ np.ones((3, 2), "float32") - xa.sum(), rtol=1e-6)


def test_fc_startup_and_run(progs):
    main, startup = progs
    x = rt.static.data("x", [None, 4])
    y = rt.static.nn.fc(x, 3, activation="relu")
    exe = rt.static.Executor()
    exe.run(startup)
    scope = rt.static.global_scope()
    w, b = scope["fc_0.w_0"], scope["fc_0.b_0"]
    assert w.shape == (4, 3) and w.dtype == np.float32 and np.all(b == 0)
    assert np.abs(w).max() <= np.sqrt(6 / 7) + 1e-6
    xa = np.random.default_rng(0).normal(size=(2, 4)).astype("float32")
    out, = exe.run(main, feed={"x": xa}, fetch_list=[y])
    np.testing.assert_allclose(out, np.maximum(xa @ w + b, 0), rtol=1e-5)
    assert out.dtype == np.float32


def test_printing_lists_blocks_vars_ops(progs):
    main, _ = progs
    x = rt.static.data("x", [None, 2])
    rt.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: x)
    text = str(main)
    assert "block 0" in text and "block 1" in text and "block 2" in text
    assert "var x : float32[-1, 2]" in text
    assert "= cond(Cond=" in text and "true_block:" in text
    line = [ln for ln in text.splitlines() if "= multiply(" in ln][0]
    assert "float32[-1, 2]" in line


def test_verify_names_the_variable(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    main.global_block().append_op("relu", {"X": ["ghost"]}, {"Out": [x.name]}, {})
    with pytest.raises(ValueError, match="ghost"):
        main.verify()


def test_missing_feed_lists_expected(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    z = rt.static.data("z", [2])
    y = x + z
    with pytest.raises(ValueError, match=r"missing feed.*\['x', 'z'\]"):
        rt.static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])


def test_feed_dtype_and_shape_errors(progs):
    main, _ = progs
    x = rt.static.data("x", [-1, 2])
    y = x * 2.0
    exe = rt.static.Executor()
    with pytest.raises(ValueError, match=r"feed 'x'.*float32.*float64"):
        exe.run(main, feed={"x": np.ones((3, 2))}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"feed 'x'.*\[-1, 2\].*\[3, 3\]"):
        exe.run(main, feed={"x": np.ones((3, 3), "float32")}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"feed 'x'.*\[2\]"):
        exe.run(main, feed={"x": np.ones((2,), "float32")}, fetch_list=[y])


def test_fetch_unknown_var(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    other = rt.static.Program()
    with rt.static.program_guard(other):
        v = rt.static.data("elsewhere", [2])
    with pytest.raises(ValueError, match="elsewhere"):
        rt.static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[v])
    with pytest.raises(ValueError, match="nope"):
        rt.static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=["nope"])
    assert x.name == "x"


def test_kernel_failure_names_op_and_origin(progs):
    main, _ = progs
    x = rt.static.data("x", [-1, 3])
    w = rt.static.data("w", [-1, 2])
    y = rt.matmul(x, w)
    op = main.global_block().ops[-1]
    op.origin = "user_model.py:42"
    with pytest.raises(ValueError) as err:
        rt.static.Executor().run(main, feed={"x": np.ones((2, 3), "float32"), "w": np.ones((4, 2), "float32")},
                                 fetch_list=[y])
    note = notes(err.value)  # the op and its origin are a note; the message is the kernel's
    assert "'matmul'" in note and y.name in note and "user_model.py:42" in note


def test_bound_tensors_are_live_and_persistable_writes_go_back():
    rt.disable_static()
    p = rt.create_parameter([2], "float32") if hasattr(rt, "create_parameter") else None
    w = rt.Parameter(np.array([1.0, 2.0], "float32"), name="w_live")
    stat = rt.Tensor(np.zeros(2, "float32"), name="running")
    stat.persistable = True
    main = rt.static.Program()
    with building(main):
        x = rt.static.data("x", [2])
        y = x * w
        rt.ops.common.assign_to(y, stat)
    exe = rt.static.Executor()
    out, = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, [1, 2])
    np.testing.assert_allclose(stat.numpy(), [1, 2])
    w._value = np.array([5.0, 6.0], "float32")  # an optimizer step on the eager parameter
    out, = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, [5, 6])
    np.testing.assert_allclose(stat.numpy(), [5, 6])
    del p


def test_plan_is_cached_and_rebuilt_when_program_grows(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    y = x + 1.0
    exe = rt.static.Executor()
    exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    assert len(main._exec_plans) == 1
    z = y * 3.0
    out, = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[z])
    np.testing.assert_allclose(out, [6, 6])
    assert len(main._exec_plans) == 2


def test_constants_folded_and_dead_ops_dropped(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    y = x + rt.full([2], 3.0)
    _unused = rt.exp(x)
    exe = rt.static.Executor()
    exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    src = list(main._exec_plans.values())[0].fn.source
    assert "fill_constant" not in src and "exp" not in src


def test_compile_block_two_segments(progs):
    main, _ = progs
    x = rt.static.data("x", [3], "float64")
    h = rt.tanh(x) * 2.0
    loss = rt.sum(h * h)
    k = len(main.global_block().ops)
    gx, = rt.static.gradients(loss, [x])
    n = len(main.global_block().ops)
    need = rt.static.segment_inputs(main.global_block(), [gx.name], op_range=(k, n))
    assert loss.name in need and "x" not in need  # tanh's grad reads its output, not x
    fwd = rt.static.compile_block(main.global_block(), ["x"], [loss.name] + need, op_range=(0, k))
    xa = np.array([0.1, -0.5, 2.0])
    lv, *saved = fwd(xa)
    bwd = rt.static.compile_block(main.global_block(), need, [gx.name], op_range=(k, n))
    g, = bwd(*saved)
    np.testing.assert_allclose(g, 2 * (2 * np.tanh(xa)) * 2 * (1 - np.tanh(xa) ** 2))


def test_clone_and_dot(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    y = rt.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)
    c = main.clone(for_test=True)
    assert str(c) == str(main)
    out, = rt.static.Executor().run(c, feed={"x": np.ones(2, "float32")}, fetch_list=[y.name])
    np.testing.assert_allclose(out, [2, 2])
    dot = main.to_dot()
    assert dot.startswith("digraph") and "cluster_" in dot and '"cond"' in dot


def test_input_spec():
    s = InputSpec([None, 784], "float32", "x")
    assert s.shape == (-1, 784) and s.dtype == "float32" and s.name == "x"
    assert s == InputSpec((-1, 784), name="x") and s != InputSpec((-1, 784), name="y")
    assert "784" in repr(s) and "float32" in repr(s)
    t = InputSpec.from_tensor(rt.to_tensor(np.zeros((2, 3), "int64")))
    assert t.shape == (2, 3) and t.dtype == "int64"
    assert len({s, InputSpec([-1, 784], name="x")}) == 1


def test_return_numpy_false_gives_tensors(progs):
    main, _ = progs
    x = rt.static.data("x", [2])
    y = x * 2.0
    out, = rt.static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y], return_numpy=False)
    assert isinstance(out, rt.Tensor)
