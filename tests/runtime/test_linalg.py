"""rt.linalg against PaddlePaddle 3.3: values and gradients, symmetric finite differences for the
one-triangle readers (cholesky, eigh), converted code against eager, errors and Tensor methods."""
import numpy as np
import pytest

import dy2st
import runtime as rt

L = rt.linalg
A = np.array([[2.0, 0.5, -1.0], [0.3, 3.0, 0.2], [-0.4, 0.1, 1.5]])
S = A @ A.T + np.eye(3)
T = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2], [-0.7, 1.1]])
B = np.array([[1.0, -2.0], [0.5, 0.3], [2.0, 1.0]])
W3 = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.5], [-0.9, 0.7, 0.2]])

# (value, [gradient of sum(out * w) per input]) from PaddlePaddle 3.3 in float64, rounded to 6 decimals
# (/tmp scratch script ref_linalg.py: the same calls with ``paddle.linalg`` and ``paddle.to_tensor``).
PADDLE = {
    "inv": ([[0.600134, -0.113865, 0.415271], [-0.070998, 0.348292, -0.093771], [0.164769, -0.053583, 0.783657]], [[[-0.272087, 0.268694, -0.456176], [-0.096619, -0.080726, 0.163586], [0.189339, -0.002739, -0.30655]]]),
    "det": (7.465, [[[4.48, -0.53, 1.23], [-0.85, 2.6, -0.4], [3.1, -0.7, 5.85]]]),
    "slogdet": ([1.0, 2.010225], [[[0.600134, -0.070998, 0.164769], [-0.113865, 0.348292, -0.053583], [0.415271, -0.093771, 0.783657]]]),
    "solve": ([[1.373744, -0.819156], [-0.084394, 0.152713], [1.705291, 0.438044]], [[[-1.622232, 0.074134, -2.376452], [0.227325, -0.023978, 0.139914], [-3.119835, 0.312499, -2.155759]], [[1.329538, 0.249297], [-0.107167, 0.09779], [1.567314, -1.180174]]]),
    "cholesky": ([[2.5, 0.0, 0.0], [0.76, 3.090696, 0.0], [-0.9, 0.376614, 1.571038]], [[[-0.081727, 0.242211, -0.189153], [0.242211, 0.051856, 0.105487], [-0.189153, 0.105487, 0.063652]]]),
    "qr_r": ([[-3.277194, -0.405835], [0.0, 2.46684]], [[[-1.355937, -1.370832], [0.442187, 0.125338], [-0.819359, -1.761309], [-0.451039, -0.05386]]]),
    "svdvals": ([3.332325, 2.426027], [[[0.794722, -1.205183], [-0.175785, 0.889165], [0.722042, 0.710544], [0.160127, -1.021067]]]),
    "eigh_w": ([1.947606, 6.921896, 10.930498], [[[-0.805188, 0.655409, 1.235554], [0.655409, 0.174518, -0.566494], [1.235554, -0.566494, 0.13067]]]),
    "pinv": ([[0.05493, 0.068165, 0.28282, -0.089326], [0.308311, -0.174506, -0.028184, 0.195009]], [[[-0.05493, -0.308311], [-0.068165, 0.174506], [-0.28282, 0.028184], [0.089326, -0.195009]]]),
    "matrix_exp": ([[2.902085, 0.862051, -1.194746], [0.509668, 4.558128, 0.2087], [-0.481679, 0.085445, 2.236652]], [[[0.375069, -4.25667, 1.678602], [4.528625, 1.544595, -1.620705], [-2.008213, 3.009111, 0.180893]]]),
    "matrix_power": ([[0.436669, -0.130244, 0.585326], [-0.082787, 0.134416, -0.135627], [0.23181, -0.079415, 0.687567]], [[[-0.508552, 0.32221, -0.752605], [0.006324, -0.09516, 0.241946], [0.031087, 0.131353, -0.653892]]]),
    "norm_nuc": (6.558214, [[[0.983945, 0.043026, -0.173207], [-0.037588, 0.998696, 0.034553], [0.174468, -0.027487, 0.984279]]]),
    "cond": (3.237215, [[[-0.983379, 0.673483, -1.293663], [0.697715, 0.779969, 0.318711], [-1.865024, 0.415012, -2.042748]]]),
    "cov": ([[0.5, -0.75, -1.4, 0.9], [-0.75, 1.125, 2.1, -1.35], [-1.4, 2.1, 3.92, -2.52], [0.9, -1.35, -2.52, 1.62]], [[[-1.0, 1.0], [1.5, -1.5], [2.8, -2.8], [-1.8, 1.8]]]),
    "multi_dot": ([[-9.45, 4.975, -0.22, -5.51], [3.2, 0.6, 6.7, -0.99], [7.31, -1.005, 8.416, 0.708]], [[[-0.8, 2.59, 9.9], [-0.8, 2.59, 9.9], [-0.8, 2.59, 9.9]], [[7.22, 4.37], [13.68, 8.28], [2.66, 1.61]], [[5.1, 5.1, 5.1, 5.1], [-2.02, -2.02, -2.02, -2.02]]]),
}

CALLS = {
    "inv": (L.inv, [A], W3),
    "det": (L.det, [A], None),
    "slogdet": (L.slogdet, [A], np.array([0.0, 1.0])),
    "solve": (L.solve, [A, B], B[::-1]),
    "cholesky": (L.cholesky, [S], W3),
    "qr_r": (lambda x: L.qr(x)[1], [T], np.array([[1.0, 2.0], [0.0, -1.0]])),
    "svdvals": (lambda x: L.svd(x)[1], [T], np.array([1.0, -2.0])),
    "eigh_w": (lambda x: L.eigh(x)[0], [S], np.array([1.0, -2.0, 0.5])),
    "pinv": (L.pinv, [T], T.T),
    "matrix_exp": (L.matrix_exp, [A * 0.5], W3),
    "matrix_power": (lambda x: L.matrix_power(x, -2), [A], W3),
    "norm_nuc": (lambda x: L.norm(x, "nuc"), [A], None),
    "cond": (L.cond, [A], None),
    "cov": (L.cov, [T], np.eye(4)),
    "multi_dot": (lambda a, b, c: L.multi_dot([a, b, c]), [A, B, T.T], np.ones((3, 4))),
}


def _run(fn, arrays, w):
    ts = [rt.to_tensor(a, stop_gradient=False) for a in arrays]
    out = fn(*ts)
    rt.sum(out * rt.to_tensor(np.ones(out.shape) if w is None else w)).backward()
    return out.numpy(), [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_values_and_gradients_match_paddle(name):
    fn, arrays, w = CALLS[name]
    out, grads = _run(fn, arrays, w)
    want, want_grads = PADDLE[name]
    np.testing.assert_allclose(out, want, atol=2e-6, err_msg=name)
    for g, wg in zip(grads, want_grads):
        np.testing.assert_allclose(g, wg, atol=2e-6, err_msg=name)


def test_lu_and_lstsq_match_paddle():
    lu, piv = L.lu(rt.to_tensor(A))
    np.testing.assert_allclose(lu.numpy(), [[2.0, 0.5, -1.0], [0.15, 2.925, 0.35], [-0.2, 0.068376, 1.276068]],
                               atol=2e-6)
    assert piv.numpy().tolist() == [1, 2, 3] and str(piv.dtype) == "int32"
    p, low, up = L.lu_unpack(lu, piv)
    np.testing.assert_allclose((p @ low @ up).numpy(), A, atol=1e-12)
    sol, res, rank, sv = L.lstsq(rt.to_tensor(T), rt.to_tensor(np.array([[1.0], [2.0], [0.5], [-1.0]])),
                                 driver="gelsd")
    np.testing.assert_allclose(sol.numpy(), [[0.421996], [-0.249801]], atol=2e-6)
    np.testing.assert_allclose(res.numpy(), [4.227817], atol=2e-6)
    assert rank.item() == 2 and str(rank.dtype) == "int32"
    np.testing.assert_allclose(sv.numpy(), [3.332325, 2.426027], atol=2e-6)


@pytest.mark.parametrize("fn", [lambda x: L.cholesky(x, upper=True), lambda x: L.eigh(x)[1] * rt.sign(L.eigh(x)[1][:1]),
                                lambda x: L.eigvalsh(x, "U")], ids=["cholesky", "eigh", "eigvalsh"])
def test_symmetric_readers_along_symmetric_directions(fn):
    """The gradient is symmetric (Paddle's): <grad, E> equals the derivative along each symmetric E."""
    x = rt.to_tensor(S, stop_gradient=False)
    w = np.random.default_rng(0).standard_normal((3, 3))
    rt.sum(fn(x) * rt.to_tensor(w)).backward()
    g = x.grad.numpy()
    np.testing.assert_allclose(g, g.T, atol=1e-12)
    for i, j in [(0, 0), (1, 0), (2, 1), (2, 2)]:
        e = np.zeros((3, 3))
        e[i, j] = e[j, i] = 1e-6
        num = ((fn(rt.to_tensor(S + e)).numpy() - fn(rt.to_tensor(S - e)).numpy()) * w).sum() / 2e-6
        np.testing.assert_allclose((g * e).sum() / 1e-6, num, rtol=1e-6)


def _central_differences(f, a, eps=1e-6):
    """d f / d a by central differences, element by element (``f`` maps a Tensor to a scalar Tensor)."""
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[idx] = eps
        num[idx] = (f(rt.to_tensor(a + e)).item() - f(rt.to_tensor(a - e)).item()) / (2 * eps)
    return num


def _model(x, y):
    q, r = L.qr(x)
    u, s, vh = L.svd(x)
    sol = L.solve(rt.matmul(x, x, transpose_x=True) + rt.eye(2, dtype="float64"), rt.matmul(x, y, transpose_x=True))
    return (rt.sum(L.inv(r) * 0.3) + rt.sum(s) + L.norm(sol) + rt.sum(L.pinv(x)) + rt.sum(L.slogdet(r)[1])
            + rt.sum(L.lstsq(x, y)[0]) + L.vector_norm(y, 3.0) + L.matrix_norm(x, 2) + rt.sum(vh * 0.1))


def test_converted_matches_eager_with_gradients():
    conv = dy2st.to_static(_model, input_spec=[dy2st.InputSpec([None, 2], "float64"),
                                               dy2st.InputSpec([None, 1], "float64")])
    for rows in (4, 6):
        x0 = np.random.default_rng(rows).standard_normal((rows, 2))
        y0 = np.random.default_rng(rows + 1).standard_normal((rows, 1))
        got = []
        for fn in (_model, conv):
            x, y = rt.to_tensor(x0, stop_gradient=False), rt.to_tensor(y0, stop_gradient=False)
            out = fn(x, y)
            out.backward()
            got.append((out.numpy(), x.grad.numpy(), y.grad.numpy()))
        for e, c in zip(*got):
            np.testing.assert_allclose(c, e, rtol=1e-10, atol=1e-12)
    assert len(conv.program_cache) == 1


def test_errors_and_tensor_methods():
    with pytest.raises(ValueError, match="last two dimensions are expected to be equal"):
        L.inv(rt.ones([2, 3]))
    with pytest.raises(ValueError, match="not invertible"):
        L.inv(rt.to_tensor([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(ValueError, match="Cholesky decomposition was not successful"):
        L.cholesky(rt.to_tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(NotImplementedError, match="complex"):
        L.eig(rt.to_tensor(A))
    x = rt.to_tensor(A)
    np.testing.assert_allclose(x.inverse().numpy(), np.linalg.inv(A))
    np.testing.assert_allclose(rt.inverse(x).numpy(), np.linalg.inv(A))
    np.testing.assert_allclose(rt.to_tensor(S).cholesky().numpy(), np.linalg.cholesky(S))
    np.testing.assert_allclose(x.slogdet().numpy()[1], np.linalg.slogdet(A)[1])
    np.testing.assert_allclose(x.matrix_power(3).numpy(), np.linalg.matrix_power(A, 3))
    np.testing.assert_allclose(x.solve(rt.to_tensor(B)).numpy(), np.linalg.solve(A, B))
    np.testing.assert_allclose(x.tensordot(x, 1).numpy(), A @ A)
    np.testing.assert_allclose(rt.tensordot(x, x, [[0, 1], [1, 0]]).numpy(), np.tensordot(A, A, ([0, 1], [1, 0])))
    np.testing.assert_allclose(x.cond().numpy(), np.linalg.cond(A))
    np.testing.assert_allclose(x.pinv().numpy(), np.linalg.pinv(A))
    assert x.qr()[1].shape == [3, 3] and len(x.lu()) == 2
    np.testing.assert_allclose(x.corrcoef().numpy(), np.corrcoef(A))
    np.testing.assert_allclose(rt.eigvalsh(rt.to_tensor(S)).numpy(), np.linalg.eigvalsh(S))


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)], ids=["tall", "wide"])
def test_lu_gradient_of_rectangular_inputs(shape):
    """P, L, U of lu_unpack(lu(x)) back to x: central differences (Paddle 3.3 gives the same to 1e-15)."""
    a = np.random.default_rng(1).standard_normal(shape)
    w = np.random.default_rng(2).standard_normal(shape)
    k = min(shape[-2:])

    def f(x):
        _, low, up = L.lu_unpack(*L.lu(x))
        return rt.sum(low * rt.to_tensor(w[..., :, :k])) + rt.sum(up * rt.to_tensor(w[..., :k, :]))
    t = rt.to_tensor(a, stop_gradient=False)
    f(t).backward()
    num = _central_differences(f, a)
    np.testing.assert_allclose(t.grad.numpy(), num, atol=1e-8)


@pytest.mark.parametrize("mode", ["reduced", "r"])
def test_qr_gradient_of_a_wide_input(mode):
    """rows < columns (Paddle 3.3 gives the same for mode 'reduced' and refuses mode 'r')."""
    a = np.random.default_rng(3).standard_normal((3, 5))
    ws = [np.random.default_rng(k).standard_normal(s) for k, s in ((4, (3, 3)), (2, (3, 5)))]

    def f(x):
        out = L.qr(x, mode=mode)
        q, r = (None, out) if mode == "r" else out
        total = rt.sum(r * rt.to_tensor(ws[1]))
        return total if q is None else total + rt.sum(q * rt.to_tensor(ws[0]))
    t = rt.to_tensor(a, stop_gradient=False)
    f(t).backward()
    num = _central_differences(f, a)
    np.testing.assert_allclose(t.grad.numpy(), num, atol=1e-7)


def test_lu_solve_vecdot_and_low_rank():
    # lu_solve: values as Paddle 3.3's; its trans='T' gradient as finite differences (Paddle's differs)
    b = rt.to_tensor(B)
    for trans, want in (("N", np.linalg.solve(A, B)), ("T", np.linalg.solve(A.T, B))):
        np.testing.assert_allclose(L.lu_solve(b, *L.lu(rt.to_tensor(A)), trans=trans).numpy(), want, atol=1e-12)
    w = np.random.default_rng(1).standard_normal((3, 2))

    def f(a):
        return rt.sum(L.lu_solve(b, *L.lu(a), trans="T") * rt.to_tensor(w))
    t = rt.to_tensor(A, stop_gradient=False)
    f(t).backward()
    num = _central_differences(f, A)
    np.testing.assert_allclose(t.grad.numpy(), num, atol=1e-8)
    np.testing.assert_allclose(L.vecdot(rt.to_tensor(T), rt.to_tensor(T), axis=0).numpy(), (T * T).sum(0))
    np.testing.assert_array_equal(L.matrix_transpose(rt.to_tensor(T)).numpy(), T.T)
    u, s, v = L.svd_lowrank(rt.to_tensor(T), q=1)
    assert u.shape == [4, 1] and v.shape == [2, 1]
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(T, compute_uv=False)[:1])
    u, s, v = L.pca_lowrank(rt.to_tensor(T), q=2)
    np.testing.assert_allclose((u * s) @ v.T, T - T.mean(0), atol=1e-12)
