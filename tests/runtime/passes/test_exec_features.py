"""Executor features: every optimization off vs on gives bitwise-identical results."""
import numpy as np
import pytest
from helpers_passes import build, control_flow_program

import dy2st
import runtime as rt
from runtime.static import passes
from runtime.static.codegen import GENERATED
from runtime.static.passes import kernels

ALL_OFF = {name: False for name in passes.FEATURES}


def _run_both(prog, feeds, fetch):
    got = {}
    for label, flags in (("off", ALL_OFF), ("on", {})):
        with passes.features(**flags):
            got[label] = [rt.static.Executor().run(prog, feed=f, fetch_list=fetch) for f in feeds]
    for off, on in zip(got["off"], got["on"]):
        for a, b in zip(off, on):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)
    return got["on"]


def _plan_names():
    """The generated plans alive now (compiled functions are weakly held: older ones may go)."""
    return list(GENERATED.keys())


def _new_sources(before):
    """The sources of the plans compiled since ``before = _plan_names()``, in order."""
    import linecache
    seen = set(before)
    out = []
    for fname in _plan_names():
        entry = linecache.cache.get(fname)
        if fname not in seen and entry:
            out.append("".join(entry[2]))
    return out


def _sources_since(before):
    return "".join(_new_sources(before))


def _transformer_block():
    rng = np.random.default_rng(7)
    rt.seed(7)
    qkv, ff1, ff2 = rt.nn.Linear(16, 48), rt.nn.Linear(16, 32), rt.nn.Linear(32, 16)
    ln = rt.nn.LayerNorm(16)

    def body():
        x = rt.static.data("x", [2, 5, 16], "float32")
        q, k, v = rt.split(qkv(x), 3, axis=-1)
        p = rt.nn.functional.softmax(rt.matmul(q, k, transpose_y=True) * 0.25, axis=-1)
        h = ln(x + rt.matmul(p, v))
        y = ln(h + ff2(rt.nn.functional.gelu(ff1(h))))
        heads = rt.transpose(rt.reshape(y, [2, 5, 4, 4]), [0, 2, 1, 3])
        return [rt.tanh(y) * 2.0 + 1.0, rt.matmul(heads, heads, transpose_y=True)]
    prog, fetch = build(body)
    feeds = [{"x": (rng.normal(size=(2, 5, 16)) * s).astype("float32")} for s in (0.5, 1.0, 3.0)]
    return prog, fetch, feeds


def test_transformer_block_identical_and_uses_fast_paths():
    prog, fetch, feeds = _transformer_block()
    n = _plan_names()
    _run_both(prog, feeds, fetch)
    src = _sources_since(n)
    assert "out=" in src  # a dead temporary was reused
    assert ".reshape((2, 5, 4, 4))" in src and ".transpose((0, 2, 1, 3))" in src
    gb = prog.global_block()
    for op_type in ("layer_norm", "gelu", "softmax"):
        op = next(op for op in gb.ops if op.type == op_type)
        fast = kernels.select_kernel(gb, op, live={op.output_arg_names[0]})
        assert fast is not None and fast.__module__ == kernels.__name__, op_type


def test_control_flow_identical_with_compiled_loops():
    prog, (y, _) = control_flow_program()
    feeds = [{"x": np.full((2, 4), v, "float32"), "n": np.array(k)} for v, k in ((0.3, 3), (-0.2, 2), (0.1, 0))]
    n = _plan_names()
    _run_both(prog, feeds, [y])
    assert "while pred_:" in _sources_since(n)


def test_rnn_loop_counter_and_getitem_expressions():
    rng = np.random.default_rng(1)
    w = rt.to_tensor((rng.normal(size=(8, 8)) * 0.3).astype("float32"))

    def body():
        x = rt.static.data("x", [6, 3, 8], "float32")
        n = rt.static.data("n", [], "int64")
        i, h = rt.static.nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, rt.tanh(h @ w + x[i] @ w)],
                                       [rt.zeros([], "int64"), rt.zeros([3, 8])])
        return [i, h, x[1:4, ::2, -1]]
    prog, fetch = build(body)
    feeds = [{"x": rng.normal(size=(6, 3, 8)).astype("float32"), "n": np.array(k)} for k in (0, 1, 6)]
    n0 = _plan_names()
    outs = _run_both(prog, feeds, fetch)
    assert [int(o[0]) for o in outs] == [0, 1, 6]
    src = _sources_since(n0)
    assert "v_x[(" in src and "while pred_:" in src
    with pytest.raises(IndexError):  # out of range: the same error as the kernel's
        rt.static.Executor().run(prog, feed={"x": feeds[0]["x"], "n": np.array(7)}, fetch_list=fetch)


def test_training_program_identical():
    rt.seed(3)
    lin, ln = rt.nn.Linear(8, 8), rt.nn.LayerNorm(8)

    def body():
        x = rt.static.data("x", [4, 8], "float32")
        y = rt.nn.functional.gelu(ln(lin(x)))
        loss = rt.mean(y * y)
        pairs = rt.static.append_backward(loss, parameter_list=[p.name for p in (lin.weight, ln.weight)])
        return [loss] + [g for _, g in pairs]
    prog, fetch = build(body)
    feeds = [{"x": np.random.default_rng(k).normal(size=(4, 8)).astype("float32")} for k in range(2)]
    n = _plan_names()
    _run_both(prog, feeds, fetch)
    off, on = _new_sources(n)  # the plans built with every feature off, then on
    assert "numel" in off and "numel" not in on and "reduce_mean" in on  # the mean's divisor became a constant


def _loop_fn(x, n):
    h = x
    i = 0
    while i < n:
        if h.sum() > 0:
            h = rt.tanh(h * 1.5 + 0.5)
        else:
            h = rt.nn.functional.softmax(h - 1.0, axis=-1)
        i += 1
    return h, i


def test_converted_functions_identical():
    xs = [np.random.default_rng(k).normal(size=(3, 4)).astype("float32") for k in range(3)]
    results = {}
    for label, flags in (("off", ALL_OFF), ("on", {})):
        f = dy2st.to_static(_loop_fn)  # a fresh StaticFunction: its plans are built under these flags
        with passes.features(**flags):
            results[label] = [[t.numpy() for t in f(rt.to_tensor(x), rt.to_tensor(k))] for x, k in zip(xs, (0, 2, 5))]
    for a, b in zip(results["off"], results["on"]):
        for u, v in zip(a, b):
            assert u.dtype == v.dtype
            np.testing.assert_array_equal(u, v)


def test_unknown_feature_is_an_error():
    with pytest.raises(ValueError, match="unknown executor feature"), passes.features(nope=True):
        pass


def test_compiled_loops_edge_cases():
    def body():
        x = rt.static.data("x", [3], "float32")
        n = rt.static.data("n", [], "int64")
        # a passthrough carry, a nested loop, and a loop inside a branch
        i, y, keep = rt.static.nn.while_loop(
            lambda i, y, keep: i < n,
            lambda i, y, keep: [i + 1, rt.static.nn.while_loop(lambda j, z: j < 2, lambda j, z: [j + 1, z * 0.5 + 1.0],
                                                               [rt.zeros([], "int64"), y])[1], keep],
            [rt.zeros([], "int64"), x, x * 2.0])
        z = rt.static.nn.cond(n > 1, lambda: rt.static.nn.while_loop(lambda k, w: k < n, lambda k, w: [k + 1, w + x],
                                                                      [rt.zeros([], "int64"), y])[1],
                              lambda: y - 1.0)
        return [i, y, keep, z]
    prog, fetch = build(body)
    feeds = [{"x": np.array([1.0, -2.0, 0.5], "float32"), "n": np.array(k)} for k in (0, 1, 3)]
    outs = _run_both(prog, feeds, fetch)
    np.testing.assert_array_equal(outs[0][2], [2.0, -4.0, 1.0])
    assert [int(o[0]) for o in outs] == [0, 1, 3]


def test_mlp_relu_chain_reuses_buffers():
    rt.seed(11)
    layers = [rt.nn.Linear(6, 6) for _ in range(3)]

    def body():
        h = rt.static.data("x", [4, 6], "float32")
        for lin in layers:
            h = rt.relu(lin(h))
        return [h]
    prog, fetch = build(body)
    feeds = [{"x": np.random.default_rng(k).normal(size=(4, 6)).astype("float32")} for k in range(3)]
    n = _plan_names()
    outs = _run_both(prog, feeds, fetch)
    off, on = _new_sources(n)
    assert "out=" not in off and on.count("out=") == 6  # each layer: bias add and relu in place
    assert (outs[0][0] >= 0).all()
