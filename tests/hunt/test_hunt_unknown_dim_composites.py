"""Composites that broadcast one tensor to another's shape, under dims unknown while the Program is built
(InputSpec None): the target dims are read when the Program runs.  masked_scatter used to keep the mask's
1 there (wrong values, no error); take_along_dim, index_put and multiplex refused or failed."""
import numpy as np
import pytest

import dy2st
import runtime as rt

S = dy2st.InputSpec


def masked_scatter(x, m, v):
    return rt.masked_scatter(x, m, v)


def take_along_dim(a, i):
    return rt.take_along_dim(a, i, 1)


def index_put(x, i, v):
    return rt.index_put(x, (i,), v, accumulate=True)


def multiplex(a, b, i):
    return rt.multiplex([a, b], i)


def _cases(n):
    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, 3)).astype("float32")
    return [
        (masked_scatter, [S([None, 3], "float32"), S([1, 3], "bool"), S([None], "float32")],
         (x, np.array([[True, False, True]]), rng.normal(size=3 * n).astype("float32"))),
        (take_along_dim, [S([None, 3], "float32"), S([1, 2], "int64")], (x, np.array([[0, 2]]))),
        (take_along_dim, [S([None, 3], "float32"), S([None, 2], "int64")], (x, rng.integers(0, 3, (1, 2)))),
        (index_put, [S([None, 3], "float32"), S([None], "int64"), S([3], "float32")],
         (x, rng.integers(0, n, 4), np.ones(3, "float32"))),
        (multiplex, [S([None, None], "float32"), S([None, None], "float32"), S([None, 1], "int32")],
         (x, -x, rng.integers(0, 2, (n, 1)).astype("int32"))),
    ]


@pytest.mark.parametrize("k", range(5))
def test_broadcasts_to_run_time_dims_match_eager(k):
    sf = None
    for n in (2, 4, 5):
        fn, spec, args = _cases(n)[k]
        sf = sf or dy2st.to_static(fn, input_spec=spec)
        ts = [rt.to_tensor(a) for a in args]
        want, got = fn(*ts), sf(*ts)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(sf.program_cache) == 1


def test_layer_norm_over_a_last_dim_unknown_while_building():
    import runtime.nn.functional as F

    def norm(x, w):
        return F.layer_norm(x, [3]), F.layer_norm(x, [3], weight=w, bias=w * 0.5)

    sf = dy2st.to_static(norm, input_spec=[S([None, None], "float32"), S([3], "float32")])
    w = rt.to_tensor(np.array([1.0, 2.0, -1.0], "float32"))
    for n in (2, 5):
        x = rt.to_tensor(np.random.default_rng(n).normal(size=(n, 3)).astype("float32"))
        for got, want in zip(sf(x, w), norm(x, w)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ValueError, match=r"normalized shape \[4\], got \[3\]"):
        sf(rt.to_tensor(np.ones((2, 4), "float32")), w)
