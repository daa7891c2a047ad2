"""cond / while_loop: one Program run for many values vs the same code with Python control flow."""
import numpy as np
import pytest

import runtime as rt
from runtime.static import nn

RNG = np.random.default_rng(7)


@pytest.fixture
def main(static_mode):
    return static_mode


def run(prog, feed, fetch):
    return rt.static.Executor().run(prog, feed=feed, fetch_list=fetch)


def test_cond_both_branches_one_program(main):
    x = rt.static.data("x", [3])
    out = nn.cond(x.sum() > 0, lambda: x * 2.0, lambda: x - 1.0)
    assert [op.type for op in main.global_block().ops][-1] == "cond"
    for xa in ([1, 2, 3], [-1, -2, 0.5], [0, 0, 0]):
        xa = np.array(xa, "float32")
        got, = run(main, {"x": xa}, [out])
        np.testing.assert_allclose(got, xa * 2 if xa.sum() > 0 else xa - 1)


def test_cond_nested_structures_none_and_scalars(main):
    x = rt.static.data("x", [2])
    a, (b, c), d = nn.cond(x.sum() > 0, lambda: (x + 1.0, [x * 3.0, 1.0], None),
                           lambda: (x - 1.0, [x, 2.0], None))
    assert d is None
    for xa in ([1, 1], [-1, -1]):
        xa = np.array(xa, "float32")
        ga, gb, gc = run(main, {"x": xa}, [a, b, c])
        pos = xa.sum() > 0
        np.testing.assert_allclose(ga, xa + 1 if pos else xa - 1)
        np.testing.assert_allclose(gb, xa * 3 if pos else xa)
        np.testing.assert_allclose(gc, 1.0 if pos else 2.0)


def test_cond_returning_outer_var_and_none(main):
    x = rt.static.data("x", [2])
    y = nn.cond(x.sum() > 0, lambda: x, lambda: x * 0.0)
    assert nn.cond(x.sum() > 0, lambda: None, lambda: None) is None
    got, = run(main, {"x": np.array([1, 2], "float32")}, [y])
    np.testing.assert_allclose(got, [1, 2])


def test_cond_output_dims_that_differ_become_unknown(main):
    x = rt.static.data("x", [4])
    y = nn.cond(x.sum() > 0, lambda: x, lambda: x[:2])
    assert y.shape == [-1]
    got, = run(main, {"x": -np.ones(4, "float32")}, [y])
    assert got.shape == (2,)


def test_cond_errors(main):
    x = rt.static.data("x", [2])
    with pytest.raises(ValueError, match="same structure"):
        nn.cond(x.sum() > 0, lambda: (x, x), lambda: x)
    with pytest.raises(ValueError, match=r"output #0.*float32.*int64"):
        nn.cond(x.sum() > 0, lambda: x, lambda: rt.cast(x, "int64"))
    with pytest.raises(ValueError, match=r"output #0.*rank"):
        nn.cond(x.sum() > 0, lambda: x, lambda: x.sum())
    with pytest.raises(TypeError, match="bool"):
        nn.cond(x.sum(), lambda: x, lambda: x)
    with pytest.raises(ValueError, match="one element"):
        nn.cond(x > 0, lambda: x, lambda: x)


def test_while_counts_from_feed(main):
    n = rt.static.data("n", [1], "int64")
    x = rt.static.data("x", [3])
    i, s = nn.while_loop(lambda i, s: i < n, lambda i, s: [i + 1, s * 2.0 + x], [0, x])
    for nv in (0, 1, 4):
        xa = RNG.normal(size=3).astype("float32")
        gi, gs = run(main, {"n": np.array([nv]), "x": xa}, [i, s])
        ref = xa.copy()
        for _ in range(nv):
            ref = ref * 2 + xa
        assert gi.item() == nv
        np.testing.assert_allclose(gs, ref, rtol=1e-5)


def test_nested_cond_in_while_in_cond(main):
    x = rt.static.data("x", [3])
    n = rt.static.data("n", [1], "int64")

    def loop():
        def body(i, h):
            h = nn.cond(h.sum() > 5.0, lambda: h * 0.5, lambda: h + x)
            return i + 1, h
        return nn.while_loop(lambda i, h: i < n, body, [rt.zeros([1], "int64"), x])[1]

    out = nn.cond(x.mean() > 0, loop, lambda: x * -1.0)
    for xa, nv in (([1, 2, 3], 5), ([-1, 0, 0.5], 3), ([0.2, 0.1, 0.3], 7)):
        xa = np.array(xa, "float32")
        got, = run(main, {"x": xa, "n": np.array([nv])}, [out])
        if xa.mean() > 0:
            ref = xa.copy()
            for _ in range(nv):
                ref = ref * 0.5 if ref.sum() > 5 else ref + xa
        else:
            ref = -xa
        np.testing.assert_allclose(got, ref, rtol=1e-5)
    main.verify()


def test_while_in_while_loop_dependent_counts(main):
    n = rt.static.data("n", [1], "int64")

    def outer_body(i, acc):
        j, acc = nn.while_loop(lambda j, a: j < i, lambda j, a: [j + 1, a + rt.cast(j, "float32")],
                               [rt.zeros([1], "int64"), acc])
        return i + 1, acc
    _, acc = nn.while_loop(lambda i, a: i < n, outer_body, [rt.zeros([1], "int64"), rt.zeros([1])])
    for nv in (0, 3, 6):
        got, = run(main, {"n": np.array([nv])}, [acc])
        assert got.item() == sum(j for i in range(nv) for j in range(i))


def test_while_carry_with_changing_dim_becomes_unknown(main):
    x = rt.static.data("x", [1])
    _, y = nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, rt.concat([y, y])], [0, x])
    assert y.shape == [-1]
    got, = run(main, {"x": np.ones(1, "float32")}, [y])
    assert got.shape == (8,)


def test_while_errors(main):
    x = rt.static.data("x", [2])
    with pytest.raises(ValueError, match=r"loop var #1 \('x'\).*float32.*int64"):
        nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, rt.cast(y, "int64")], [0, x])
    with pytest.raises(ValueError, match=r"loop var #1 \('x'\).*rank"):
        nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, y.sum()], [0, x])
    with pytest.raises(ValueError, match="same structure"):
        nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1], [0, x])
    with pytest.raises(TypeError, match="bool"):
        nn.while_loop(lambda i, y: i, lambda i, y: [i + 1, y], [rt.zeros([1], "int64"), x])


def test_dynamic_mode_runs_python():
    rt.disable_static()
    x = rt.to_tensor([1.0, 2.0])
    assert nn.cond(x.sum() > 0, lambda: "yes", lambda: "no") == "yes"
    i, s = nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * 2], [rt.to_tensor(0), x])
    assert int(i) == 3
    np.testing.assert_allclose(s.numpy(), [8, 16])


def test_assert_and_print(main, capsys):
    x = rt.static.data("x", [2])
    nn.Assert(x.sum() > 0, message="sum must be positive", data=[x])
    y = nn.Print(x * 2.0, message="doubled")
    exe = rt.static.Executor()
    got, = exe.run(main, feed={"x": np.array([1, 2], "float32")}, fetch_list=[y])
    np.testing.assert_allclose(got, [2, 4])
    assert "doubled" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="sum must be positive"):
        exe.run(main, feed={"x": np.array([-1, -2], "float32")}, fetch_list=[y])


def test_ops_in_registry_with_infer():
    from runtime.registry import get_op
    for t in ("cond", "while", "while_grad", "assert", "print", "fill_constant_like"):
        assert get_op(t).infer is not None
    assert get_op("print").pure is False and get_op("assert").pure is False
