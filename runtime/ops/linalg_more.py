"""The rest of ``paddle.linalg`` made of registered ops: cholesky_inverse, lu_solve, matrix_transpose,
vecdot, ormqr, svd_lowrank, pca_lowrank. The low-rank ones compute the exact truncated SVD (Paddle's
randomized range finder approximates it; with ``q`` at least the rank both give the same factors up to
the signs of singular vector pairs)."""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .common import constant
from .composites_extra import tril
from .indexing import getitem
from .linalg_grad import matmul, mT
from .math import add, multiply, subtract
from .reduce import mean
from .reduce import sum as sum_
from .shape import unsqueeze


@composite("cholesky_inverse", methods=["cholesky_inverse"])
def cholesky_inverse(x: TensorLike, upper: bool = False, name: str | None = None) -> TensorLike:
    """``inv(x x^T)`` (``inv(x^T x)`` when ``upper``) of a square 2-D Cholesky factor ``x``, as Paddle's (so
    the gradient reaches every entry of ``x``, not only its triangle)."""
    if x.ndim != 2:
        raise ValueError("The input tensor must be 2-dimensional")
    if x.shape[0] != x.shape[1]:
        raise ValueError("The input tensor must be square matrix")
    return apply("inverse", matmul(x, x, True, False) if upper else matmul(x, x, False, True))


def lu_solve(b: TensorLike, lu: TensorLike, pivots: TensorLike, trans: str = "N",
             name: str | None = None) -> TensorLike:
    """The solution of ``A x = b`` (``A^T x = b`` for ``trans`` "T" or "C") from ``lu``'s packed
    factors and pivots of ``A = P L U``."""
    if trans not in ("N", "T", "C"):
        raise ValueError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    p = apply("lu_pivots", pivots, n=lu.shape[-2], dtype=str(lu.dtype))
    if trans == "N":  # x = U^-1 L^-1 P^T b
        z = apply("triangular_solve", lu, matmul(p, b, True, False), upper=False, unitriangular=True)
        return apply("triangular_solve", lu, z, upper=True)
    z = apply("triangular_solve", lu, b, upper=True, transpose=True)            # U^-T b
    z = apply("triangular_solve", lu, z, upper=False, transpose=True, unitriangular=True)
    return matmul(p, z)


# a plain function, not a declared composite: the top-level rt.matrix_transpose and the Tensor method
# belong with the Tensor API
def matrix_transpose(x: TensorLike, name: str | None = None) -> TensorLike:
    """``x`` with its last two dims swapped."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have rank >= 2, got shape {list(x.shape)}")
    return mT(x)


def vecdot(x: TensorLike, y: TensorLike, axis: int = -1, name: str | None = None) -> TensorLike:
    """``sum(x * y)`` along ``axis`` (broadcast)."""
    return sum_(multiply(x, y), axis=axis)


def householder_q(x, tau):
    """The full M x M product H_1 ... H_K of the reflectors stored below the diagonal of ``x``."""
    m, n = x.shape[-2], x.shape[-1]
    if m < 0 or n < 0:
        raise ValueError("householder product: the matrix size must be known when the Program is built")
    dt = str(x.dtype)
    v = add(tril(x, -1), constant(np.eye(m, n), dt))
    q = None
    for i in range(tau.shape[-1]):
        vi = getitem(v, (Ellipsis, slice(None), slice(i, i + 1)))          # [*, M, 1]
        ti = unsqueeze(getitem(tau, (Ellipsis, slice(i, i + 1))), -1)     # [*, 1, 1]
        h = subtract(constant(np.eye(m), dt), multiply(ti, matmul(vi, vi, False, True)))
        q = h if q is None else matmul(q, h)
    return q if q is not None else constant(np.eye(m), dt)


@composite("ormqr", methods=["ormqr"])
def ormqr(x: TensorLike, tau: TensorLike, y: TensorLike, left: bool = True, transpose: bool = False,
          name: str | None = None) -> TensorLike:
    """``op(Q) y`` (``y op(Q)`` when not ``left``), Q = ``householder_product(x, tau)`` ([*, M, N], as
    Paddle's) and ``op`` the transpose when ``transpose``."""
    from .linalg_api import householder_product  # noqa: PLC0415  (linalg_api imports this module)
    rows, cols = (x.shape[-2], x.shape[-1]) if not transpose else (x.shape[-1], x.shape[-2])
    if (y.shape[-2] if left else y.shape[-1]) != (cols if left else rows):
        raise ValueError(f"ormqr: op(Q) is [{rows}, {cols}] and y {list(y.shape)} do not fit "
                         f"({'op(Q) y' if left else 'y op(Q)'})")
    q = householder_product(x, tau)
    return matmul(q, y, bool(transpose), False) if left else matmul(y, q, False, bool(transpose))


def svd_lowrank(x: TensorLike, q: int | None = None, niter: int = 2, M: TensorLike | None = None,  # noqa: N803
                name: str | None = None) -> tuple:
    """(U [*, M, q], S [*, q], V [*, N, q]) of the rank-``q`` SVD of ``x - M`` (q defaults to
    min(6, M, N)); ``niter`` is accepted for Paddle's signature (the SVD here is exact)."""
    a = x if M is None else subtract(x, M)
    m, n = x.shape[-2], x.shape[-1]
    k = min(6, m, n) if q is None else int(q)
    if m >= 0 and n >= 0 and not 0 <= k <= min(m, n):
        raise ValueError(f"svd_lowrank: q must be in [0, {min(m, n)}], got {q}")
    u, s, vh = apply("svd", a, full_matrices=False)
    return (getitem(u, (Ellipsis, slice(None), slice(0, k))), getitem(s, (Ellipsis, slice(0, k))),
            mT(getitem(vh, (Ellipsis, slice(0, k), slice(None)))))


def pca_lowrank(x: TensorLike, q: int | None = None, center: bool = True, niter: int = 2,
                name: str | None = None) -> tuple:
    """``svd_lowrank`` of ``x`` with its column means subtracted (when ``center``)."""
    return svd_lowrank(subtract(x, mean(x, axis=-2, keepdim=True)) if center else x, q, niter)
