"""``paddle.linalg``'s functions (Paddle's names, arguments and defaults) over the ops of linalg_ops.py
and linalg_lu.py, and the ones made of other registered ops (composites: their gradients and static
form are those of the ops they use): cholesky_solve, matrix_power, multi_dot, cov, corrcoef, cond,
eigvalsh, tensordot, lu_unpack, householder_product. Norms are in linalg_norms.py."""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .common import constant
from .composites_extra import tril, triu
from .elementwise import _floating
from .indexing import getitem
from .linalg_grad import matmul, mT
from .math import add, divide, multiply, subtract
from .reduce import sum as sum_
from .shape import reshape, shape, squeeze, transpose, unsqueeze


def _need_matrix(x, what):
    if x.ndim < 2:
        raise ValueError(f"{what}: x must have rank >= 2 ([*, M, N]), got shape {list(x.shape)}")


def inverse(x: TensorLike, name: str | None = None) -> TensorLike:
    """The inverse of each square matrix of ``x`` ([*, M, M]); ValueError when one is singular."""
    return apply("inverse", x)


inv = inverse


def det(x: TensorLike, name: str | None = None) -> TensorLike:
    """The determinant of each square matrix of ``x`` (shape: the batch dims)."""
    return apply("determinant", x)


def slogdet(x: TensorLike, name: str | None = None) -> TensorLike:
    """[sign, log|det|] of each square matrix, stacked on a new first dim of size 2 (as Paddle's)."""
    return apply("slogdeterminant", x)


def solve(x: TensorLike, y: TensorLike, left: bool = True, name: str | None = None) -> TensorLike:
    """``x^-1 y`` (``y x^-1`` when ``left`` is False); ``y`` may be a vector (or a batch of them: one dim
    fewer than ``x``)."""
    _need_matrix(x, "solve")
    vec = y.ndim == x.ndim - 1 or y.ndim == 1
    if vec:
        y = unsqueeze(y, -1 if left else -2)
    if left:
        out = apply("solve", x, y)
    else:  # out x = y  <=>  x^T out^T = y^T
        out = mT(apply("solve", mT(x), mT(y)))
    return squeeze(out, -1 if left else -2) if vec else out


def triangular_solve(x: TensorLike, y: TensorLike, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, name: str | None = None) -> TensorLike:
    """The solution of ``op(A) out = y``, ``A`` the upper (or lower) triangle of ``x``, ``op`` the transpose
    when ``transpose``, a unit diagonal when ``unitriangular``."""
    return apply("triangular_solve", x, y, upper=bool(upper), transpose=bool(transpose),
                 unitriangular=bool(unitriangular))


def cholesky(x: TensorLike, upper: bool = False, name: str | None = None) -> TensorLike:
    """The Cholesky factor of each symmetric positive-definite matrix (lower; upper when ``upper``)."""
    return apply("cholesky", x, upper=bool(upper))


@composite("cholesky_solve", methods=["cholesky_solve"])
def cholesky_solve(x: TensorLike, y: TensorLike, upper: bool = False, name: str | None = None) -> TensorLike:
    """``A^-1 x`` for ``A = y y^T`` (``y^T y`` when ``upper``): ``x`` the right-hand sides, ``y`` the
    Cholesky factor (Paddle's argument order)."""
    z = apply("triangular_solve", y, x, upper=bool(upper), transpose=bool(upper))
    return apply("triangular_solve", y, z, upper=bool(upper), transpose=not upper)


def lstsq(x: TensorLike, y: TensorLike, rcond: float | None = None, driver: str | None = None,
          name: str | None = None) -> tuple:
    """(solution, residuals, rank, singular_values) of the least-squares problem ``x out = y``; the
    outputs a driver does not compute are empty, as Paddle's (default driver "gelsy", the CPU one)."""
    return tuple(apply("lstsq", x, y, rcond=None if rcond is None else float(rcond), driver=driver or "gelsy"))


def qr(x: TensorLike, mode: str = "reduced", name: str | None = None):
    """(Q, R) of each matrix (mode "reduced" or "complete"), or R alone (mode "r")."""
    q, r = apply("qr", x, mode=mode)
    return r if mode == "r" else (q, r)


def svd(x: TensorLike, full_matrices: bool = False, name: str | None = None) -> tuple:
    """(U, S, VH) with ``x = U diag(S) VH``, S descending."""
    return tuple(apply("svd", x, full_matrices=bool(full_matrices)))


def svdvals(x: TensorLike, name: str | None = None) -> TensorLike:
    """The singular values of each matrix, descending."""
    return apply("svd", x, full_matrices=False)[1]


def eigh(x: TensorLike, UPLO: str = "L", name: str | None = None) -> tuple:  # noqa: N803  (Paddle's name)
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, read from its ``UPLO``
    triangle."""
    return tuple(apply("eigh", x, UPLO=UPLO))


@composite("eigvalsh", api=["eigvalsh"], methods=["eigvalsh"])
def eigvalsh(x: TensorLike, UPLO: str = "L", name: str | None = None) -> TensorLike:  # noqa: N803
    """The eigenvalues (ascending) of each symmetric matrix."""
    return apply("eigh", x, UPLO=UPLO)[0]


def eig(x: TensorLike, name: str | None = None):
    """Not available: the eigen decomposition of a general matrix is complex, and runtime has no complex
    dtypes (use ``eigh``/``eigvalsh`` for symmetric matrices)."""
    raise NotImplementedError("linalg.eig: runtime has no complex dtypes; use eigh/eigvalsh for symmetric x")


eigvals = eig


def pinv(x: TensorLike, rcond: float = 1e-15, hermitian: bool = False, name: str | None = None) -> TensorLike:
    """The Moore-Penrose pseudo-inverse of each matrix (singular values below ``rcond`` times the largest
    count as zero)."""
    return apply("pinv", x, rcond=float(rcond), hermitian=bool(hermitian))


def _scalar(v, what):
    if v is None or isinstance(v, (int, float)):
        return v
    if hasattr(v, "_value"):  # an eager Tensor
        return np.asarray(v._value).tolist()
    raise NotImplementedError(f"matrix_rank: {what} as a static tensor is not supported; pass a float")


def matrix_rank(x: TensorLike, tol: float | None = None, hermitian: bool = False, atol: float | None = None,
                rtol: float | None = None, name: str | None = None) -> TensorLike:
    """The number of singular values above the tolerance (``tol``, or ``max(atol, rtol * s_max)``, by
    default ``s_max * max(M, N) * eps``) of each matrix, int64."""
    return apply("matrix_rank", x, tol=_scalar(tol, "tol"), hermitian=bool(hermitian),
                 atol=_scalar(atol, "atol"), rtol=_scalar(rtol, "rtol"))


def matrix_exp(x: TensorLike, name: str | None = None) -> TensorLike:
    """The matrix exponential of each square matrix."""
    return apply("matrix_exp", x)


def lu(x: TensorLike, pivot: bool = True, get_infos: bool = False, name: str | None = None) -> tuple:
    """(LU packed, 1-based int32 pivots) of each matrix, and the int32 infos when ``get_infos``."""
    out, piv, info = apply("lu", x, pivot=bool(pivot))
    return (out, piv, info) if get_infos else (out, piv)


@composite("lu_unpack", methods=["lu_unpack"])
def lu_unpack(x: TensorLike, y: TensorLike, unpack_ludata: bool = True, unpack_pivots: bool = True,
              name: str | None = None) -> tuple:
    """(P, L, U) with ``A = P L U`` from ``lu``'s packed matrix ``x`` and pivots ``y``."""
    m, n = x.shape[-2], x.shape[-1]
    if m < 0 or n < 0:
        raise ValueError("lu_unpack: the matrix size must be known when the Program is built")
    k = min(m, n)
    p = apply("lu_pivots", y, n=m, dtype=str(x.dtype)) if unpack_pivots else None
    low = upp = None
    if unpack_ludata:
        low = add(tril(getitem(x, (Ellipsis, slice(None), slice(0, k))), -1), constant(np.eye(m, k), str(x.dtype)))
        upp = triu(getitem(x, (Ellipsis, slice(0, k), slice(None))))
    return p, low, upp


@composite("matrix_power", methods=["matrix_power"])
def matrix_power(x: TensorLike, n: int, name: str | None = None) -> TensorLike:
    """``x`` to the integer power ``n`` (the inverse's power for a negative ``n``, the identity for 0)."""
    if x.ndim < 2 or (x.shape[-1] >= 0 and x.shape[-1] != x.shape[-2]):
        raise ValueError(f"matrix_power: x must be a batch of square matrices, got shape {list(x.shape)}")
    n = int(n)
    if n == 0:
        eye = constant(np.eye(x.shape[-1]), str(x.dtype))
        return add(multiply(x, apply("fill_any_like", x, value=0.0)), eye)
    base = apply("inverse", x) if n < 0 else x
    out, k = None, abs(n)
    while k:  # square-and-multiply
        if k & 1:
            out = base if out is None else matmul(out, base)
        k >>= 1
        if k:
            base = matmul(base, base)
    return out


@composite("multi_dot", methods=["multi_dot"])
def multi_dot(x: list[TensorLike], name: str | None = None) -> TensorLike:
    """The product of the matrices in ``x`` (the first may be a row vector, the last a column vector:
    1-D tensors, dropped from the result's shape), multiplied in the cheapest order."""
    if len(x) < 2:
        raise ValueError(f"multi_dot: x must hold at least 2 tensors, got {len(x)}")
    mats = list(x)
    first, last = mats[0].ndim == 1, mats[-1].ndim == 1
    if first:
        mats[0] = unsqueeze(mats[0], 0)
    if last:
        mats[-1] = unsqueeze(mats[-1], -1)
    for i, m in enumerate(mats):
        if m.ndim != 2:
            raise ValueError(f"multi_dot: tensor {i} must be 2-D (the first and last may be 1-D), "
                             f"got shape {list(x[i].shape)}")
    out = _chain(mats, _order([m.shape[0] for m in mats] + [mats[-1].shape[1]]), 0, len(mats) - 1)
    if first and last:
        return reshape(out, [])
    if first:
        return squeeze(out, 0)
    return squeeze(out, -1) if last else out


def _order(dims):
    """The split table of the cheapest parenthesisation (matrix-chain order)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + abs(dims[i] * dims[k + 1] * dims[j + 1])
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def _not_one(x, axis, what, given):
    """``x.shape[axis] != 1``, which decides numpy's cov result (a one-row ``x`` is not transposed, and
    gives a 0-D result); a dim known only when the Program runs is taken as not 1 and checked then."""
    if x.shape[axis] >= 0:
        return x.shape[axis] != 1
    ok = apply("not_equal", shape(x)[axis], constant(1, "int64"))
    apply("assert", ok, [], error="ValueError", message=(
        f"cov: x of shape {given} has {what} when the Program runs, for which cov gives another shape "
        "(numpy's rule) than a Program built with that dim unknown can: give the dim a known size"))
    return True


def _count(x, axis, minus=0):
    """``float(x.shape[axis] - minus)``, the divisor eager code takes; a dim known only when the Program
    runs is read then, in x's float dtype (the dtype the Python float gets as an operand)."""
    n = x.shape[axis]
    if n >= 0:
        return float(n - minus)
    n = shape(x)[axis]
    return apply("cast", subtract(n, constant(minus, "int64")) if minus else n, dtype=str(x.dtype))


@composite("cov", methods=["cov"], float16_in_float32=True)
def cov(x: TensorLike, rowvar: bool = True, ddof: bool = True, fweights: TensorLike | None = None,
        aweights: TensorLike | None = None, name: str | None = None) -> TensorLike:
    """The covariance matrix of the variables in the rows (columns when not ``rowvar``) of a 1-D or 2-D
    ``x``, as ``numpy.cov`` (``ddof`` True divides by N - 1; frequency and analytic weights)."""
    if x.ndim > 2:
        raise ValueError(f"cov: x must be 1-D or 2-D, got shape {list(x.shape)}")
    x, given = _floating(x), list(x.shape)
    if x.ndim < 2:
        x = unsqueeze(x, 0)
    if not rowvar and _not_one(x, 0, "1 row (rowvar=False)", given):
        x = mT(x)
    w = None
    if fweights is not None:
        w = apply("cast", fweights, dtype=str(x.dtype))
    if aweights is not None:
        a = apply("cast", aweights, dtype=str(x.dtype))
        w = a if w is None else multiply(w, a)
    if w is None:
        xc = subtract(x, divide(sum_(x, 1, keepdim=True), _count(x, 1)))
        c = divide(matmul(xc, xc, False, True), _count(x, 1, 1 if ddof else 0))
        return c if _not_one(x, 0, "1 variable", given) else reshape(c, [])
    w_sum = sum_(w)
    avg = divide(sum_(multiply(x, w), 1, keepdim=True), w_sum)
    if ddof and aweights is not None:
        a = apply("cast", aweights, dtype=str(x.dtype))
        fact = subtract(w_sum, divide(sum_(multiply(w, a)), w_sum))
    else:
        fact = subtract(w_sum, 1.0) if ddof else w_sum
    xc = subtract(x, avg)
    c = divide(matmul(multiply(xc, w), xc, False, True), fact)
    return c if _not_one(x, 0, "1 variable", given) else reshape(c, [])


@composite("corrcoef", methods=["corrcoef"], float16_in_float32=True)
def corrcoef(x: TensorLike, rowvar: bool = True, name: str | None = None) -> TensorLike:
    """Pearson correlation coefficients of the rows (columns when not ``rowvar``), clipped to [-1, 1]."""
    c = cov(x, rowvar)
    if c.ndim == 0:
        return divide(c, c)
    from .index_extra import diagonal  # noqa: PLC0415
    d = apply("sqrt", diagonal(c))
    c = divide(divide(c, unsqueeze(d, 1)), unsqueeze(d, 0))
    return apply("clip", c, min=-1.0, max=1.0)


@composite("tensordot", api=["tensordot"], methods=["tensordot"])
def tensordot(x: TensorLike, y: TensorLike, axes: int | list = 2, name: str | None = None) -> TensorLike:
    """The sum of products over ``axes``: an int (the last ``axes`` dims of ``x`` with the first of ``y``),
    one list (the same dims of both) or two lists (dims of ``x``, dims of ``y``)."""
    if hasattr(axes, "_value"):
        axes = np.asarray(axes._value).tolist()
    if isinstance(axes, int):
        ax, ay = list(range(x.ndim - axes, x.ndim)), list(range(axes))
    else:
        axes = list(axes)
        if axes and isinstance(axes[0], (list, tuple)):
            ax, ay = list(axes[0]), list(axes[1]) if len(axes) > 1 else list(axes[0])
        else:
            ax = ay = [int(a) for a in axes]
        if len(ax) != len(ay):  # Paddle pads the shorter list with the other's dims
            ax, ay = (ax + ay[len(ax):], ay) if len(ax) < len(ay) else (ax, ay + ax[len(ay):])
    ax, ay = [a % x.ndim for a in ax], [a % y.ndim for a in ay]
    for a, b in zip(ax, ay):
        if x.shape[a] != y.shape[b] and x.shape[a] >= 0 and y.shape[b] >= 0:
            raise ValueError(f"tensordot: dim {a} of x ({x.shape[a]}) and dim {b} of y ({y.shape[b]}) must match")
    fx, fy = [i for i in range(x.ndim) if i not in ax], [i for i in range(y.ndim) if i not in ay]
    # dims known only when the Program runs are read then (their -1 placeholders would multiply into k)
    k = 1
    for a, b in zip(ax, ay):
        d = x.shape[a] if x.shape[a] >= 0 else y.shape[b]
        if d >= 0:
            k = k * d if isinstance(k, int) else multiply(k, d)
        else:
            k = shape(x)[a] if isinstance(k, int) and k == 1 else multiply(shape(x)[a], k)
    xm = reshape(transpose(x, fx + ax), [-1 if fx else 1, k])
    ym = reshape(transpose(y, ay + fy), [k, -1 if fy else 1])
    out = [x.shape[i] if x.shape[i] >= 0 else shape(x)[i] for i in fx] + \
          [y.shape[i] if y.shape[i] >= 0 else shape(y)[i] for i in fy]
    return reshape(matmul(xm, ym), out)


@composite("householder_product", methods=["householder_product"])
def householder_product(x: TensorLike, tau: TensorLike, name: str | None = None) -> TensorLike:
    """The first N columns of H_1 ... H_K, ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` the i-th column of
    ``x`` below the diagonal and a 1 on it (LAPACK's orgqr; ``x`` [*, M, N], ``tau`` [*, K])."""
    from .linalg_more import householder_q  # noqa: PLC0415  (linalg_more imports this module's neighbours)
    m, n = x.shape[-2], x.shape[-1]
    if m < 0 or n < 0 or m < n:
        raise ValueError(f"householder_product: x must have M >= N (both known), got shape {list(x.shape)}")
    return getitem(householder_q(x, tau), (Ellipsis, slice(None), slice(0, n)))
