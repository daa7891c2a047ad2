"""The Paddle 2.x tensor functions (einsum, unique, median, scatter...) give Paddle's values, dtypes and
shapes (expected values below were read off Paddle 3.3), through dy2st.to_static as eagerly, and
their gradients where Paddle's rule differs from the obvious one (amax ties, mode, einsum's ``...``).
Every op also has a row in op_cases_extra.py (kernel vs numpy, one-op Program, ONNX, finite
differences)."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt

T = rt.to_tensor
X = np.array([[3.0, 1, 2, 1], [2, 2, 5, 5]], np.float32)


def _val(out):
    if isinstance(out, (list, tuple)):
        return [_val(o) for o in out]
    return (out.numpy().tolist(), str(out.dtype).replace("paddle.", ""), list(out.shape))


# (call, expected [(value, dtype, shape)...]) with values printed by Paddle 3.3 for the same call
EAGER = [
    (lambda: rt.median(T(X)), (2.0, "float32", [])),
    (lambda: rt.median(T(X), axis=1), ([1.5, 3.5], "float32", [2])),
    (lambda: rt.median(T([1, 2, 3, 4])), (2.5, "float32", [])),
    (lambda: rt.median(rt.zeros([2, 0]), axis=1), ([float("nan")] * 2, "float32", [2])),
    (lambda: rt.median(T(X), axis=1, mode="min")[0], ([1.0, 2.0], "float32", [2])),
    (lambda: rt.mode(T(X)), [([1.0, 2.0], "float32", [2]), ([3, 1], "int64", [2])]),
    (lambda: rt.unique(T([[2, 1], [2, 3]]), return_index=True, return_inverse=True, return_counts=True),
     [([1, 2, 3], "int64", [3]), ([1, 0, 3], "int64", [3]), ([1, 0, 1, 2], "int64", [4]),
      ([1, 2, 1], "int64", [3])]),
    (lambda: rt.unique(T([2.0, 1.0]), return_index=True, dtype="int32")[1], ([1, 0], "int32", [2])),
    (lambda: rt.unique_consecutive(T([1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True),
     [([1, 2, 3, 1], "int64", [4]), ([0, 0, 1, 1, 2, 3, 3], "int64", [7]), ([2, 2, 1, 2], "int64", [4])]),
    (lambda: rt.dot(T([[1.0, 2], [3, 4]]), T([[1.0, 2], [3, 4]])), ([5.0, 25.0], "float32", [2])),
    (lambda: rt.cumprod(T(X)), ([3.0, 3, 6, 6, 12, 24, 120, 600], "float32", [8])),
    (lambda: rt.cumprod(T([1, 2, 3])), ([1, 2, 6], "int64", [3])),
    (lambda: rt.scatter(T(np.zeros((3, 2), np.float32)), T([0, 1, 0]), T(np.arange(6, dtype=np.float32).reshape(3, 2))),
     ([[4.0, 5], [2, 3], [0, 0]], "float32", [3, 2])),
    (lambda: rt.scatter(T(np.ones((3, 2), np.float32)), T([0, 1, 0]), T(np.arange(6, dtype=np.float32).reshape(3, 2)),
                        overwrite=False), ([[4.0, 6], [2, 3], [1, 1]], "float32", [3, 2])),
    (lambda: rt.rank(T(X)), (2, "int32", [])),
    (lambda: rt.is_empty(T(X)), (False, "bool", [])),
    (lambda: rt.count_nonzero(T(X), axis=1), ([4, 4], "int64", [2])),
    (lambda: rt.quantile(T(X), [0.25, 0.5], axis=1), ([[1.0, 2.0], [1.5, 3.5]], "float32", [2, 2])),
    (lambda: rt.rad2deg(T([1, 2])).dtype, "float32"),
    (lambda: rt.log2(T([1, 8])), ([0.0, 3.0], "float32", [2])),
    (lambda: rt.trunc(T([1, 8])), ([1, 8], "int64", [2])),
    (lambda: rt.tril_indices(3, 4, 1), ([[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 1, 0, 1, 2, 0, 1, 2, 3]], "int64", [2, 9])),
    (lambda: rt.triu_indices(3, 4, -1)[0], ([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2], "int64", [11])),
    (lambda: rt.logspace(0, 2, 3), ([1.0, 10.0, 100.0], "float32", [3])),
    (lambda: rt.diag(T([1.0, 2]), offset=1, padding_value=9), ([[9.0, 1, 9], [9, 9, 2], [9, 9, 9]], "float32", [3, 3])),
    (lambda: rt.diag(T([[1.0, 2, 3], [4, 5, 6]]), offset=-1), ([4.0], "float32", [1])),
    (lambda: rt.cross(T(np.eye(3, dtype=np.float32)), T(np.ones((3, 3), np.float32))),
     ([[0.0, 1, -1], [-1, 0, 1], [1, -1, 0]], "float32", [3, 3])),
    (lambda: rt.take(T(X), T([[-1, 0]])), ([[5.0, 3.0]], "float32", [1, 2])),
    (lambda: rt.take(T(X), T([9]), mode="wrap"), ([1.0], "float32", [1])),
    (lambda: rt.repeat_interleave(T(X), T([1, 2]), axis=0)[2], ([2.0, 2, 5, 5], "float32", [4])),
    (lambda: rt.bucketize(T([1.0, 3, 5]), T([1.0, 3, 5]), right=True), ([1, 2, 3], "int64", [3])),
    (lambda: rt.searchsorted(T([[1.0, 3, 5], [2, 4, 6]]), T([[3.0], [3]])), ([[1], [1]], "int64", [2, 1])),
    (lambda: rt.heaviside(T([-1.0, 0, 2]), T([0.5, 0.5, 0.5])), ([0.0, 0.5, 1.0], "float32", [3])),
    (lambda: rt.allclose(T([1.0, float("nan")]), T([1.0, float("nan")]), equal_nan=True), (True, "bool", [])),
    (lambda: rt.isclose(T([1.0, float("inf")]), T([1.00001, float("inf")])), ([False, True], "bool", [2])),
    (lambda: rt.equal_all(T([1, 2]), T([1, 2, 3])), (False, "bool", [])),
    (lambda: rt.nan_to_num(T([float("nan"), 1.0]), nan=2.0), ([2.0, 1.0], "float32", [2])),
    (lambda: rt.nanmean(T([1.0, float("nan")])), (1.0, "float32", [])),
    (lambda: rt.nansum(T([1, 2])).dtype, "int64"),
    (lambda: [a.shape for a in rt.meshgrid(T([1, 2]), T([1, 2, 3]))], [[2, 3], [2, 3]]),
    (lambda: rt.gather_nd(T(X), T([[1, 2], [0, 0]])), ([5.0, 3.0], "float32", [2])),
    (lambda: rt.gather_nd(T(X), T([[1]])), ([[2.0, 2, 5, 5]], "float32", [1, 4])),
    (lambda: rt.index_sample(T(X), T([[0, 0], [3, 1]])), ([[3.0, 3], [5, 2]], "float32", [2, 2])),
    (lambda: rt.diff(T(X), axis=1), ([[-2.0, 1, -1], [0, 3, 0]], "float32", [2, 3])),
    (lambda: rt.diff(T([1, 4, 9]), n=2), ([2], "int64", [1])),
    (lambda: rt.fmax(T([1.0, float("nan"), 3]), T([float("nan"), 2, 1])), ([1.0, 2, 3], "float32", [3])),
    (lambda: rt.put_along_axis(T(X), T([[0], [1]]), 9.0, 1), ([[9.0, 1, 2, 1], [2, 9, 5, 5]], "float32", [2, 4])),
    (lambda: rt.kron(T([[1.0, 2]]), T([[1.0], [10]])), ([[1.0, 2], [10, 20]], "float32", [2, 2])),
    (lambda: rt.rot90(T([[1, 2], [3, 4]])), ([[2, 4], [1, 3]], "int64", [2, 2])),
    (lambda: rt.rot90(T([[1, 2], [3, 4]]), k=-1), ([[3, 1], [4, 2]], "int64", [2, 2])),
    (lambda: rt.mv(T([[1.0, 2], [3, 4]]), T([1.0, 1])), ([3.0, 7.0], "float32", [2])),
    (lambda: rt.lerp(T([1.0, 2]), T([3.0, 6]), 0.5), ([2.0, 4.0], "float32", [2])),
    (lambda: rt.moveaxis(rt.ones([2, 3, 4]), [0, 1], [2, 0]).shape, [3, 4, 2]),
    (lambda: rt.unflatten(T(X), 1, [2, -1]).shape, [2, 2, 2]),
    (lambda: rt.t(T([1.0, 2])).shape, [2]),
    (lambda: rt.broadcast_shape([2, 1], [3]), [2, 3]),
    (lambda: rt.floor_mod(T([5, -5]), T([3, 3])), ([2, 1], "int64", [2])),
    (lambda: rt.amax(T(X), axis=1), ([3.0, 5.0], "float32", [2])),
    (lambda: rt.einsum("ii", T(X[:, :2])), (5.0, "float32", [])),
    (lambda: rt.trace(T(X), offset=1), (6.0, "float32", [])),
    (lambda: rt.erf(T([1, 8])).dtype, "float32"),
    (lambda: (rt.is_floating_point(T(X)), rt.is_integer(T([1])), T(X).tolist()[1]), (True, True, [2.0, 2, 5, 5])),
]


def _is_meta(w):
    return isinstance(w, tuple) and len(w) == 3 and isinstance(w[1], str)


def _check(got, want):
    if _is_meta(want):
        value, dtype, shape = _val(got)
        np.testing.assert_allclose(np.asarray(value, float), np.asarray(want[0], float), rtol=1e-6)
        assert (dtype, shape) == (want[1], want[2]), f"dtype/shape {dtype}{shape}, Paddle gives {want[1]}{want[2]}"
    elif isinstance(want, list) and want and _is_meta(want[0]):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _check(g, w)
    else:
        assert got == want or str(got) == want, f"{got!r} != {want!r}"


@pytest.mark.parametrize("k", range(len(EAGER)))
def test_eager_matches_paddle(k):
    call, want = EAGER[k]
    _check(call(), want)


def test_methods_are_paddle_names():
    x = T(X)
    assert x.t().shape == [4, 2] and len(x.unbind()) == 2 and x.diagonal().tolist() == [3.0, 2.0]
    assert x.amax().item() == 5.0 and x.cumprod(1).shape == [2, 4] and x.median().item() == 2.0
    assert x.floor_mod(T(2.0)).tolist()[0] == [1.0, 1.0, 0.0, 1.0] and x.is_floating_point()


def test_isclose_of_infinities_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inf - inf would be numpy's "invalid value" warning
        got = rt.isclose(T([np.inf, -np.inf, np.nan, 1.0]), T([np.inf, np.inf, np.nan, 1.0]), equal_nan=True)
    assert got.tolist() == [True, False, True, True]


def test_errors_say_what_was_expected():
    with pytest.raises(ValueError, match=r"einsum 'ij,jk->ik': subscript 'j' has sizes 4 and 2"):
        rt.einsum("ij,jk->ik", T(X), T(X))
    with pytest.raises(ValueError, match=r"gather_nd: index's last dim \(3\) must be at most the rank of x \(2\)"):
        rt.gather_nd(T(X), T([[0, 1, 2]]))
    with pytest.raises(ValueError, match=r"dot: x and y must have the same shape, got \[3\] and \[2\]"):
        rt.dot(T([1.0, 2, 3]), T([1.0, 2]))
    with pytest.raises(ValueError, match=r"kthvalue: k=5 must be in \[1, 4\]"):
        rt.kthvalue(T(X), 5)
    with pytest.raises(ValueError, match="t: input must have rank <= 2"):
        rt.t(rt.ones([1, 2, 3]))


def test_gradients_follow_paddle_rules():
    # amax/amin split the gradient between tied extremes (Paddle); mode's goes to the index it reports
    x = T([[1.0, 3, 3]], stop_gradient=False)
    rt.amax(x).backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5]]
    x = T(X, stop_gradient=False)
    rt.mode(x)[0].sum().backward()
    assert x.grad.tolist() == [[0.0, 0, 0, 1], [0, 1, 0, 0]]
    # einsum over broadcast ``...`` dims: the size-1 operand's gradient sums over the broadcast
    a = T(np.arange(6, dtype=np.float32).reshape(2, 3), stop_gradient=False)
    b = T(np.ones((1, 3), np.float32), stop_gradient=False)
    rt.einsum("...i,...i->...", a, b).sum().backward()
    assert b.grad.tolist() == [[3.0, 5.0, 7.0]] and a.grad.tolist() == [[1.0] * 3] * 2
    # repeated subscripts (a diagonal): the gradient lies on that diagonal
    m = T(np.ones((2, 2, 3), np.float32), stop_gradient=False)
    (rt.einsum("iij->j", m) * T([1.0, 2.0, 3.0])).sum().backward()
    assert m.grad.numpy().tolist() == (np.eye(2)[:, :, None] * [1.0, 2.0, 3.0]).tolist()


def _model(x, y):
    """One function over many of the new functions, converted by dy2st and compared with eager."""
    z = rt.einsum("ij,kj->ik", x, y) + rt.mm(x, rt.t(y))
    q = rt.erf(z) + rt.log2(rt.abs(z) + 1) + rt.atan2(z, rt.ones_like(z)) + rt.lerp(z, rt.cosh(z), 0.25)
    m = rt.median(q, axis=1) + rt.amax(q, axis=1) + rt.quantile(q, 0.3, axis=1)
    g = rt.gather_nd(q, rt.to_tensor([[0, 1], [1, 0]]))
    s = rt.scatter(q, rt.to_tensor([1]), rt.diagonal(q)[None, :2] * 0 + rt.nansum(q))
    parts = rt.unbind(s, axis=0)
    kth, _ = rt.kthvalue(q, 2, axis=1)
    if rt.allclose(x, y):
        m = m * 2
    return m + g + parts[0] + kth + rt.trace(s) + rt.dot(x[0], y[0]) + rt.cumprod(q, dim=1)[:, -1]


def test_to_static_matches_eager():
    static = dy2st.to_static(_model)
    rng = np.random.default_rng(0)
    for shape_scale in (0.5, 1.0, 2.0):
        x = rng.standard_normal((2, 3)).astype(np.float32) * shape_scale
        y = rng.standard_normal((2, 3)).astype(np.float32)
        for a, b in ((x, y), (x, x)):
            want = _model(T(a), T(b)).numpy()
            got = static(T(a), T(b)).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    types = {op.type for op in static.main_program.global_block().ops}
    assert {"einsum", "gather_nd", "scatter", "diagonal", "reduce_amax", "cumprod", "cond"} <= types, types


def _dyn_fns(x):
    return [rt.broadcast_tensors([x, x[:1]])[1], rt.repeat_interleave(x, 2, axis=0), rt.meshgrid(x[:, 0], x[0])[1],
            rt.take(x, rt.to_tensor([[0, 5], [-1, 2]])), rt.einsum("bi,bj->bij", x, x), rt.kron(x, rt.ones([2, 1])),
            rt.median(x, axis=1), rt.cumprod(x, dim=0), rt.unique(rt.cast(x > 0, "int64")), rt.diagonal(x)]


def test_unknown_batch_dim_matches_eager():
    # -1 dims: the functions read run-time sizes (a -1 given to expand would keep a broadcast 1)
    main = rt.static.Program()
    rt.enable_static()
    try:
        with rt.static.program_guard(main, rt.static.Program()):
            outs = _dyn_fns(rt.static.data("x", [-1, 4], "float32"))
    finally:
        rt.disable_static()
    for n in (3, 5):
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        got = rt.static.Executor().run(main, feed={"x": x}, fetch_list=outs)
        for k, (g, w) in enumerate(zip(got, _dyn_fns(T(x)))):
            assert g.shape == tuple(w.shape) and g.dtype == w.numpy().dtype, f"output {k}"
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-6, err_msg=f"output {k}")
