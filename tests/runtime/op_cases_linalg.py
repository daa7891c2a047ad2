"""Rows for paddle.linalg's ops and composites, and rt.distribution's special-function ops (runtime/ops/linalg_ops.py, linalg_lu.py, linalg_api.py,
linalg_norms.py); the row format is op_cases'. Matrices are well conditioned (diagonally dominant or
symmetric positive definite) so finite differences and the numpy references are stable.
cholesky's and eigh's rows skip the entrywise finite differences: both read one triangle but give
Paddle's symmetric gradient (tests/runtime/test_linalg.py checks them along symmetric directions)."""
import numpy as np

_rng = np.random.default_rng(99)


def _f(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def _dominant(*batch, n=3):
    return (_f(*batch, n, n) * 0.5 + 3 * np.eye(n)).astype(np.float32)


def _spd(*batch, n=3):
    a = _f(*batch, n, n)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def _slogdet(x):
    s, v = np.linalg.slogdet(x)
    return np.stack([s, v])


def _tri(x, y, upper, transpose, unitriangular):
    a = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        a = a * (1 - np.eye(3)) + np.eye(3)
    return np.linalg.solve(np.swapaxes(a, -1, -2) if transpose else a, y)


def _expm(x):
    import scipy.linalg  # noqa: PLC0415
    return np.stack([scipy.linalg.expm(m.astype(np.float64)) for m in x]).astype(np.float32)


def _cov(x):
    return np.cov(x).astype(np.float32)


def rows(case):
    sq, tall = _dominant(2), _f(2, 4, 3)
    spd = _spd(2)
    cases = {
        "inverse": case(sq, ref=np.linalg.inv, tol=1e-4),
        "determinant": case(sq, ref=np.linalg.det, tol=1e-4),
        "slogdeterminant": case(sq, ref=_slogdet, tol=1e-4),
        "solve": case(sq, _f(2, 3, 2), ref=np.linalg.solve, tol=1e-4),
        "triangular_solve": case(sq, _f(3, 2), upper=False, transpose=True, unitriangular=False, tol=1e-4,
                                 ref=lambda x, y, **a: _tri(x, y, **a)),
        "cholesky": case(spd, upper=True, ref=lambda x, upper: np.swapaxes(np.linalg.cholesky(x), -1, -2),
                         grad=False, tol=1e-4),
        "qr": case(tall, mode="reduced", ref=lambda x, mode: np.linalg.qr(x), tol=1e-4),
        "svd": case(tall, full_matrices=False, ref=lambda x, full_matrices: np.linalg.svd(x, full_matrices=False),
                    tol=1e-4),
        "eigh": case(spd, UPLO="L", ref=lambda x, UPLO: np.linalg.eigh(x), grad=False, tol=1e-4),
        "pinv": case(tall, ref=lambda x: np.linalg.pinv(x), tol=1e-4),
        # nothing cut: no extra term (test_kernels_vs_paddle5 checks a cut against finite differences)
        "pinv_cut_grad": case(tall, _f(2, 3, 4), rcond=1e-15, hermitian=False, grad=False,
                              ref=lambda x, g, rcond, hermitian: np.zeros_like(x)),
        "matrix_rank": case(np.concatenate([sq, sq[:, :1]], 1), ref=lambda x: np.array([3, 3])),
        "matrix_exp": case(sq * 0.3, ref=lambda x: _expm(x), tol=1e-4),
        "lu": case(sq, grad_outs=[0], tol=1e-4),
        "lu_pivots": case(np.array([[3, 3, 3], [2, 2, 3]], np.int32), n=3, dtype="float32",
                          ref=lambda p, n, dtype: np.stack([np.eye(3)[:, [2, 0, 1]], np.eye(3)[:, [1, 0, 2]]])),
        "lstsq": case(tall, _f(2, 4, 2), driver="gelsd", grad_outs=[0], tol=1e-4,
                      ref=lambda x, y, driver: (np.linalg.pinv(x) @ y,
                                                ((x @ (np.linalg.pinv(x) @ y) - y) ** 2).sum(-2),
                                                np.array([3, 3], np.int32), np.linalg.svd(x, compute_uv=False))),
    }
    m3 = _f(3, 3)
    composites = {
        "cholesky_solve": case(_f(2, 3, 2), np.linalg.cholesky(spd).astype(np.float32), upper=False, tol=1e-4,
                               ref=lambda b, low, upper: np.linalg.solve(low @ np.swapaxes(low, -1, -2), b)),
        "eigvalsh": case(spd, UPLO="U", ref=lambda x, UPLO: np.linalg.eigvalsh(x, UPLO="U"), grad=False, tol=1e-4),
        "lu_unpack": case(np.array([[7, 8, 10], [0.25, 1, 2], [0.5, 0.5, -1]], np.float32),
                          np.array([3, 2, 3], np.int32),
                          ref=lambda x, p: (np.eye(3)[:, [2, 1, 0]], np.tril(x, -1) + np.eye(3), np.triu(x))),
        "matrix_power": case(sq * 0.5, n=-2, ref=lambda x, n: np.linalg.matrix_power(x, -2), tol=1e-4),
        "multi_dot": case([_f(3), _f(3, 4), _f(4, 2)], ref=lambda xs: xs[0] @ xs[1] @ xs[2], grad=False),
        "cov": case(_f(3, 5), ref=_cov, tol=1e-5),
        "corrcoef": case(_f(3, 5), rowvar=False, ref=lambda x, rowvar: np.corrcoef(x, rowvar=False), tol=1e-5),
        "tensordot": case(_f(2, 3, 4), _f(4, 3, 2), axes=[[1, 2], [1, 0]],
                          ref=lambda x, y, axes: np.tensordot(x, y, axes=([1, 2], [1, 0]))),
        "householder_product": case(tall, _f(2, 3) * 0.5, tol=1e-5, ref=lambda x, t: _householder(x, t)),
        "vector_norm": case(m3, p=3.0, axis=[0, 1], ref=lambda x, p, axis: (np.abs(x) ** 3).sum() ** (1 / 3)),
        "matrix_norm": case(sq, p="nuc", ref=lambda x, p: np.linalg.norm(x, "nuc", axis=(-2, -1)), tol=1e-4),
        "cholesky_inverse": case(np.linalg.cholesky(spd[0]).astype(np.float32), upper=False, tol=1e-4,
                                 ref=lambda low, upper: np.linalg.inv(low @ low.T)),
        "ormqr": case(tall[0], _f(3) * 0.5, _f(3, 2), left=True, transpose=False, tol=1e-5,
                      ref=lambda x, t, y, left, transpose: _householder(x[None], t[None])[0] @ y),
        "linalg_cond": case(sq, p=None, ref=lambda x, p: np.linalg.cond(x), tol=1e-4),
    }
    return cases, composites


def _householder(x, tau):
    out = []
    for a, t in zip(x, tau):
        m, n = a.shape
        q = np.eye(m)
        for i in range(n):
            v = np.zeros(m)
            v[i] = 1
            v[i + 1:] = a[i + 1:, i]
            q = q @ (np.eye(m) - t[i] * np.outer(v, v))
        out.append(q[:, :n])
    return np.stack(out).astype(np.float32)
