"""The general ops in static mode: appended Variables carry the inferred shapes, and running
the Program with rt.static.Executor gives what eager mode gives."""
import numpy as np
import pytest

import runtime as rt
from static_helpers import building

_rng = np.random.default_rng(0)
X = _rng.standard_normal((2, 3, 4)).astype(np.float32)

# name -> f(x, i) built the same way in both modes; x is [-1, 3, 4] float32, i an int64 scalar.
FUNCS = {
    "sum_axis": lambda x, i: x.sum(axis=1),
    "mean_keep": lambda x, i: rt.mean(x, axis=[1, 2], keepdim=True),
    "max_min": lambda x, i: rt.max(x, axis=-1) - rt.min(x, axis=-1),
    "prod": lambda x, i: rt.prod(x, axis=2),
    "argmax": lambda x, i: rt.argmax(x, axis=1),
    "cumsum": lambda x, i: rt.cumsum(x, axis=2),
    "reshape0": lambda x, i: x.reshape([0, -1]),
    "transpose": lambda x, i: x.transpose([2, 0, 1]),
    "squeeze": lambda x, i: rt.squeeze(rt.unsqueeze(x, [1]), axis=[1]),
    "flatten": lambda x, i: rt.flatten(x, 1),
    "concat": lambda x, i: rt.concat([x, x * 2], axis=1),
    "stack": lambda x, i: rt.stack([x, x], axis=-1),
    "split": lambda x, i: rt.split(x, [1, 3], axis=2)[1],
    "gather": lambda x, i: rt.gather(x, rt.to_tensor([2, 0]), axis=1),
    "expand_tile": lambda x, i: rt.tile(x[:, :1], [1, 3, 1]) + rt.expand(x[:1], [2, 3, 4]) * 0,
    "getitem_int_tensor": lambda x, i: x[:, i],
    "getitem_slices": lambda x, i: x[:, 1:, None, ::2],
    "elementwise": lambda x, i: rt.exp(x) + rt.tanh(x) * rt.sigmoid(x) - rt.abs(x) ** 2 + rt.clip(x, -0.5, 0.5),
    "pow_tensor": lambda x, i: rt.pow(rt.abs(x) + 1, x),
    "maximum": lambda x, i: rt.maximum(x, x * 0.5) + rt.minimum(x, 0.1),
    "floordiv_mod": lambda x, i: (x // 0.3) + (x % 0.3),
    "compare": lambda x, i: rt.logical_and(x > 0, x < 1) | ~(x == 0),
    "where": lambda x, i: rt.where(x > 0, x, rt.zeros_like(x)),
    "isfinite": lambda x, i: rt.isfinite(rt.log(x)),
    "topk": lambda x, i: rt.topk(x, 2, axis=-1)[0],
    "argsort": lambda x, i: rt.argsort(x, axis=1, descending=True),
    "shape_numel": lambda x, i: rt.shape(x) * rt.numel(x),
    "creation": lambda x, i: rt.ones_like(x) + rt.full_like(x, 2.0) + rt.zeros([4]) + rt.arange(4).astype("float32"),
    "eye_linspace": lambda x, i: rt.eye(4) + rt.linspace(0, 1, 4),
    "matmul": lambda x, i: rt.matmul(x, rt.transpose(x, [0, 2, 1])),
}


def _run_static(fn):
    main, startup = rt.static.Program(), rt.static.Program()
    with building(main, startup):
        x = rt.static.data("x", [-1, 3, 4], "float32")
        i = rt.static.data("i", [], "int64")
        out = fn(x, i)
    got, = rt.static.Executor().run(main, feed={"x": X, "i": np.array(2, np.int64)}, fetch_list=[out])
    return out, got


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log of negatives in "isfinite"
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_static_matches_eager(name):
    fn = FUNCS[name]
    want = fn(rt.to_tensor(X), rt.to_tensor(2)).numpy()
    var, got = _run_static(fn)
    assert isinstance(var, rt.static.Variable)
    assert len(var.shape) == want.ndim
    assert all(d in (-1, w) for d, w in zip(var.shape, want.shape)), f"{var.shape} vs {want.shape}"
    assert var.dtype == want.dtype.name
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_static_shapes_are_inferred_when_ops_are_appended():
    main = rt.static.Program()
    rt.enable_static()
    try:
        with rt.static.program_guard(main):
            x = rt.static.data("x", [-1, 3, 4], "float32")
            assert x.sum(axis=1).shape == [-1, 4]
            assert x.reshape([0, -1]).shape == [-1, 12]
            assert x[0].shape == [3, 4]
            assert x[:, 1:3].shape == [-1, 2, 4]
            assert rt.concat([x, x], axis=1).shape == [-1, 6, 4]
            assert [s.shape for s in rt.split(x, 2, axis=2)] == [[-1, 3, 2]] * 2
            assert rt.shape(x).shape == [3] and rt.shape(x).dtype == "int64"
            assert rt.zeros_like(x).shape == [-1, 3, 4]
            assert rt.rand([2, 5]).shape == [2, 5]
            with pytest.raises(ValueError, match=r"\[-1, 3, 4\].*\[0, 5\]"):
                x.reshape([0, 5])
            with pytest.raises(ValueError, match=r"matmul"):
                rt.matmul(x, x)
        types = [op.type for op in main.global_block().ops]
        assert "reduce_sum" in types and "getitem" in types and "fill_any_like" in types
    finally:
        rt.disable_static()


def test_static_random_ops_run_and_are_seeded():
    main = rt.static.Program()
    with building(main):
        r = rt.rand([3, 2])
        n = rt.randn([4])
        k = rt.randint(0, 3, [5])
    exe = rt.static.Executor()
    rt.seed(5)
    a = exe.run(main, fetch_list=[r, n, k])
    rt.seed(5)
    b = exe.run(main, fetch_list=[r, n, k])
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert a[0].shape == (3, 2) and a[0].dtype == np.float32 and a[2].dtype == np.int64
