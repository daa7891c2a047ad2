"""Paddle's matrix decompositions and solvers as ops with numpy (LAPACK) kernels: inverse, determinant,
slogdeterminant, solve, triangular_solve, cholesky, qr, svd, eigh, pinv, matrix_rank, matrix_exp.

Every op takes batches (``[*, M, N]``) and keeps its input's float dtype. Gradient rules are built from
registered ops (matmul, transpose and these ops themselves), so ``backward()`` works eagerly and in a
Program alike; the rules are the textbook ones (as Paddle's and PyTorch's): svd and eigh assume
distinct singular/eigen values, qr a tall or square input. Only ``determinant`` has an ONNX lowering
(``Det``): ONNX has no decomposition or solver ops.
"""
import numpy as np

from ..dispatch import apply
from ..registry import GRAD_ONLY, Meta, def_op
from .linalg_grad import (band, cholesky_grad, mT, matmul, neg, pinv_grad, qr_grad, svd_grad,
                          eigh_grad, unsq2)

API = "runtime.ops.linalg_api"  # where the public functions (and methods) of these ops live
NO_ONNX = "no ONNX op computes this decomposition/solver (ONNX has only Det)"


def _square(x, what):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"(InvalidArgument) {what}: the last two dimensions are expected to be equal, got "
                         f"shape {list(x.shape)}")


def _float(a, what):
    if a.dtype.kind != "f":
        raise TypeError(f"{what}: the input must be float32 or float64, got {a.dtype}")


def _shape_infer_sq(what):
    def infer(x, **_):
        if len(x.shape) < 2 or (x.shape[-1] >= 0 and x.shape[-2] >= 0 and x.shape[-1] != x.shape[-2]):
            raise ValueError(f"{what}: the last two dimensions are expected to be equal, got shape {list(x.shape)}")
        return Meta(x.shape, x.dtype)
    return infer


# -- inverse, determinant, slogdeterminant -------------------------------------------------------------
def _inverse_kernel(x):
    _square(x, "inverse")
    _float(x, "inverse")
    try:
        return np.linalg.inv(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise ValueError("(InvalidArgument) inverse: Input is not invertible.") from None


def _inverse_grad(ctx):
    out, g = ctx.outputs[0], ctx.out_grads[0]
    return [neg(matmul(matmul(out, g, True, False), out, False, True))]


def_op("inverse", ["X"], ["Out"], kernel=_inverse_kernel, api=["inverse"], methods=["inverse"], module=API,
       infer=_shape_infer_sq("inverse"), grad=_inverse_grad,
       no_onnx=NO_ONNX, doc="The inverse of each square matrix of X.")


def _det_kernel(x):
    _square(x, "det")
    _float(x, "det")
    return np.asarray(np.linalg.det(x)).astype(x.dtype)


def _batch_infer(x, **_):
    return Meta(x.shape[:-2], x.dtype)


def _det_grad(ctx):
    x, out, g = ctx.inputs[0], ctx.outputs[0], ctx.out_grads[0]
    # d det / dX = det * X^-T
    return [apply("multiply", unsq2(apply("multiply", g, out)), mT(apply("inverse", x)))]


def_op("determinant", ["X"], ["Out"], kernel=_det_kernel, infer=_batch_infer, grad=_det_grad, onnx="Det",
       doc="The determinant of each square matrix of X (shape: X's batch dims).")


def _slogdet_kernel(x):
    _square(x, "slogdet")
    _float(x, "slogdet")
    sign, logabs = np.linalg.slogdet(x)
    return np.stack([np.asarray(sign), np.asarray(logabs)]).astype(x.dtype)


def _slogdet_grad(ctx):
    x, g = ctx.inputs[0], ctx.out_grads[0]
    from .indexing import getitem  # noqa: PLC0415  (indexing imports the shape ops this module's users import)
    # the sign is piecewise constant: only log|det| has a gradient, X^-T
    return [apply("multiply", unsq2(getitem(g, 1)), mT(apply("inverse", x)))]


def_op("slogdeterminant", ["X"], ["Out"], kernel=_slogdet_kernel, methods=["slogdet"], module=API,
       infer=lambda x, **_: Meta((2,) + tuple(x.shape[:-2]), x.dtype), grad=_slogdet_grad, no_onnx=NO_ONNX,
       doc="[sign, log|det|] of each square matrix of X, stacked on a new first dim of size 2.")


# -- solvers ----------------------------------------------------------------------------------------------
def _bcast_batch(a, b):
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return np.broadcast_to(a, lead + a.shape[-2:]), np.broadcast_to(b, lead + b.shape[-2:])


def _solve_kernel(x, y):
    _square(x, "solve")
    if y.ndim < 2 or y.shape[-2] != x.shape[-1]:
        raise ValueError(f"(InvalidArgument) solve: y's rows ({list(y.shape)}) must match x's order "
                         f"({list(x.shape)})")
    a, b = _bcast_batch(x, y)
    try:
        return np.linalg.solve(a, b).astype(np.result_type(x, y), copy=False)
    except np.linalg.LinAlgError:
        raise ValueError("(InvalidArgument) solve: the matrix x is singular.") from None


def _solve_infer(x, y, **_):
    from .common import broadcast_shape  # noqa: PLC0415
    lead = broadcast_shape(tuple(x.shape[:-2]), tuple(y.shape[:-2]), "solve batch dims")
    return Meta(tuple(lead) + (x.shape[-1], y.shape[-1]), x.dtype)


def _reduce_as(g, like):
    from .common import reduce_as  # noqa: PLC0415
    return reduce_as(g, like)


def _solve_grad(ctx):
    x, y = ctx.inputs
    out, g = ctx.outputs[0], ctx.out_grads[0]
    gy = apply("solve", mT(x), g)
    gx = neg(matmul(gy, out, False, True))
    return [_reduce_as(gx, x), _reduce_as(gy, y)]


def_op("solve", ["X", "Y"], ["Out"], kernel=_solve_kernel, methods=["solve"], module=API,
       infer=_solve_infer, grad=_solve_grad, no_onnx=NO_ONNX,
       doc="X^-1 Y for square X [*, M, M] and Y [*, M, K] (batch dims broadcast).")


def _tri_kernel(x, y, upper=True, transpose=False, unitriangular=False):
    _square(x, "triangular_solve")
    if y.ndim < 2 or y.shape[-2] != x.shape[-1]:
        raise ValueError(f"(InvalidArgument) triangular_solve: y's rows ({list(y.shape)}) must match x's "
                         f"order ({list(x.shape)})")
    a = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        n = x.shape[-1]
        a = a * (1 - np.eye(n, dtype=x.dtype)) + np.eye(n, dtype=x.dtype)
    if transpose:
        a = np.swapaxes(a, -1, -2)
    a, b = _bcast_batch(a, y)
    with np.errstate(all="ignore"):  # a zero pivot gives inf/nan, as LAPACK's trtrs
        try:
            return np.linalg.solve(a, b).astype(np.result_type(x, y), copy=False)
        except np.linalg.LinAlgError:
            raise ValueError("(InvalidArgument) triangular_solve: the matrix x is singular.") from None


def _tri_grad(ctx):
    x, y = ctx.inputs
    out, g = ctx.outputs[0], ctx.out_grads[0]
    up, tr, unit = (ctx.attrs.get(k, d) for k, d in (("upper", True), ("transpose", False),
                                                      ("unitriangular", False)))
    gy = apply("triangular_solve", x, g, upper=up, transpose=not tr, unitriangular=unit)
    gx = neg(matmul(out, gy, False, True) if tr else matmul(gy, out, False, True))
    # only the triangle the solve read gets a gradient (not the diagonal of a unit triangle)
    k = (1 if unit else 0)
    gx = band(gx, k if up else -k, upper=up)
    return [_reduce_as(gx, x), _reduce_as(gy, y)]


def_op("triangular_solve", ["X", "Y"], ["Out"], attrs={"upper": True, "transpose": False, "unitriangular": False},
       kernel=_tri_kernel, infer=_solve_infer, grad=_tri_grad, no_onnx=NO_ONNX,
       doc="The solution of op(A) Out = Y, A the upper/lower triangle of X (unit diagonal if unitriangular).")


# -- decompositions -------------------------------------------------------------------------------------
def _cholesky_kernel(x, upper=False):
    _square(x, "cholesky")
    _float(x, "cholesky")
    try:
        low = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise ValueError("(InvalidArgument) Cholesky decomposition was not successful. The input matrix "
                         "might not be positive definite.") from None
    return (np.swapaxes(low, -1, -2) if upper else low).astype(x.dtype, copy=False)


def_op("cholesky", ["X"], ["Out"], attrs={"upper": False}, kernel=_cholesky_kernel, api=["cholesky"],
       methods=["cholesky"], module=API,
       infer=_shape_infer_sq("cholesky"), no_onnx=NO_ONNX,
       grad=lambda ctx: [cholesky_grad(ctx.outputs[0], ctx.out_grads[0], ctx.attrs.get("upper", False))],
       doc="The Cholesky factor of each symmetric positive-definite matrix of X (lower, or upper if upper).")


def _qr_shapes(shape, mode):
    m, n = shape[-2], shape[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    lead = tuple(shape[:-2])
    if mode == "complete":
        return lead + (m, m), lead + (m, n)
    if mode == "r":
        return lead + (0, 0), lead + (k, n)
    return lead + (m, k), lead + (k, n)


def _qr_kernel(x, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if x.ndim < 2:
        raise ValueError(f"qr: x must have rank >= 2, got shape {list(x.shape)}")
    _float(x, "qr")
    q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = np.zeros(x.shape[:-2] + (0, 0), x.dtype)
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _qr_infer(x, mode="reduced"):
    q, r = _qr_shapes(x.shape, mode)
    return Meta(q, x.dtype), Meta(r, x.dtype)


def_op("qr", ["X"], ["Q", "R"], attrs={"mode": "reduced"}, kernel=_qr_kernel, methods=["qr"], module=API,
       infer=_qr_infer, no_onnx=NO_ONNX,
       grad=lambda ctx: [qr_grad(ctx.inputs[0], *ctx.outputs, *ctx.out_grads, ctx.attrs.get("mode", "reduced"))],
       doc="The QR decomposition of each matrix of X (Q empty in mode 'r').")


def _svd_kernel(x, full_matrices=False):
    if x.ndim < 2:
        raise ValueError(f"svd: x must have rank >= 2, got shape {list(x.shape)}")
    _float(x, "svd")
    u, s, vh = np.linalg.svd(x, full_matrices=bool(full_matrices))
    return u.astype(x.dtype, copy=False), s.astype(x.dtype, copy=False), vh.astype(x.dtype, copy=False)


def _svd_infer(x, full_matrices=False):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    lead = tuple(x.shape[:-2])
    if full_matrices:
        return Meta(lead + (m, m), x.dtype), Meta(lead + (k,), x.dtype), Meta(lead + (n, n), x.dtype)
    return Meta(lead + (m, k), x.dtype), Meta(lead + (k,), x.dtype), Meta(lead + (k, n), x.dtype)


def_op("svd", ["X"], ["U", "S", "VH"], attrs={"full_matrices": False}, kernel=_svd_kernel, infer=_svd_infer,
       no_onnx=NO_ONNX,
       grad=lambda ctx: [svd_grad(*ctx.outputs, *ctx.out_grads, ctx.attrs.get("full_matrices", False))],
       doc="U, S, VH with X = U diag(S) VH, S descending.")


def _eigh_kernel(x, UPLO="L"):  # noqa: N803  (Paddle's argument name)
    if UPLO not in ("L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    _square(x, "eigh")
    _float(x, "eigh")
    w, v = np.linalg.eigh(x, UPLO=UPLO)
    return w.astype(x.dtype, copy=False), v.astype(x.dtype, copy=False)


def_op("eigh", ["X"], ["W", "V"], attrs={"UPLO": "L"}, kernel=_eigh_kernel,
       infer=lambda x, UPLO="L": (Meta(tuple(x.shape[:-1]), x.dtype), Meta(x.shape, x.dtype)), no_onnx=NO_ONNX,
       grad=lambda ctx: [eigh_grad(*ctx.outputs, *ctx.out_grads)],
       doc="Eigenvalues (ascending) and eigenvectors of each symmetric matrix of X (from its UPLO triangle).")


def _pinv_kernel(x, rcond=1e-15, hermitian=False):
    if x.ndim < 2:
        raise ValueError(f"pinv: x must have rank >= 2, got shape {list(x.shape)}")
    _float(x, "pinv")
    return np.linalg.pinv(x, rcond=rcond, hermitian=bool(hermitian)).astype(x.dtype, copy=False)


def _pinv_cut_grad_kernel(a, g, rcond=1e-15, hermitian=False):
    """What pinv's gradient gains when rcond cuts nonzero singular values (zeros, and so the same bits,
    when every cut one is 0): the constant-rank formula misses how dA turns the kept singular vectors
    toward the cut ones. With the full SVD A = U S V^T, phi = 1/s kept and 0 cut, H = V^T G U and
    D_ij = 1/(s_j^2 - s_i^2) for a kept/cut pair, the exact gradient is U M V^T with
    M = -H o phi phi^T + D o (H o (phi_j s_i - phi_i s_j) + H^T o (phi_j s_j - phi_i s_i)); the extra
    term is M's kept/cut part at the actual s minus the same at cut s = 0."""
    m, n = a.shape[-2:]
    u, s, vh = np.linalg.svd(a.astype(np.float64), full_matrices=True)
    keep = s > rcond * (s.max(-1, keepdims=True) if s.shape[-1] else 0)
    if not (s * ~keep).any():
        return np.zeros(a.shape, a.dtype)
    big = max(m, n)
    pad = [(0, 0)] * (s.ndim - 1) + [(0, big - s.shape[-1])]
    s, keep = np.pad(s, pad), np.pad(keep, pad)
    phi = np.where(keep, 1 / np.where(keep, s, 1), 0)
    h = np.zeros(a.shape[:-2] + (big, big))
    h[..., :n, :m] = vh @ g @ u  # V^T G U
    si, sj, fi, fj = s[..., :, None], s[..., None, :], phi[..., :, None], phi[..., None, :]
    mixed = keep[..., :, None] != keep[..., None, :]

    def part(si, sj):
        d = np.where(mixed, 1 / np.where(mixed, sj ** 2 - si ** 2, 1), 0)
        return d * (h * (fj * si - fi * sj) + np.swapaxes(h, -1, -2) * (fj * sj - fi * si))
    s0 = np.where(keep, s, 0)
    extra = part(si, sj) - part(s0[..., :, None], s0[..., None, :])
    return (u @ extra[..., :m, :n] @ vh).astype(a.dtype)


def_op("pinv_cut_grad", ["X", "OutGrad"], ["XGrad"], attrs={"rcond": 1e-15, "hermitian": False},
       kernel=_pinv_cut_grad_kernel, infer=lambda x, g, **_: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY,
       doc="The part of pinv's gradient from singular values rcond cuts (see _pinv_cut_grad_kernel).")


def _pinv_grad(ctx):
    g = pinv_grad(ctx.inputs[0], ctx.outputs[0], ctx.out_grads[0])
    g = apply("add", g, apply("pinv_cut_grad", ctx.inputs[0], ctx.out_grads[0], **ctx.attrs))
    if ctx.attrs.get("hermitian"):  # x is taken as symmetric: a symmetric gradient, as Paddle's
        g = apply("scale", apply("add", g, mT(g)), scale=0.5)
    return g


def_op("pinv", ["X"], ["Out"], attrs={"rcond": 1e-15, "hermitian": False}, kernel=_pinv_kernel,
       methods=["pinv"], module=API,
       infer=lambda x, **_: Meta(tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2]), x.dtype), no_onnx=NO_ONNX,
       grad=lambda ctx: [_pinv_grad(ctx)],
       doc="The Moore-Penrose pseudo-inverse of each matrix of X (singular values below rcond * max cut).")


def _rank_kernel(x, tol=None, hermitian=False, atol=None, rtol=None):
    if x.ndim < 2:
        raise ValueError(f"matrix_rank: x must have rank >= 2, got shape {list(x.shape)}")
    s = np.abs(np.linalg.eigvalsh(x)) if hermitian else np.linalg.svd(x, compute_uv=False)
    smax = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
    if tol is not None:
        cut = np.asarray(tol, s.dtype)[..., None] if np.ndim(tol) else np.asarray(tol)
    elif atol is None and rtol is None:
        cut = smax * max(x.shape[-2:]) * np.finfo(x.dtype).eps
    else:
        r = (np.finfo(x.dtype).eps * max(x.shape[-2:]) if atol is None else 0.0) if rtol is None else rtol
        cut = np.maximum(0.0 if atol is None else atol, smax * r)
    return (s > cut).sum(-1).astype(np.int64)


def_op("matrix_rank", ["X"], ["Out"], attrs={"tol": None, "hermitian": False, "atol": None, "rtol": None},
       kernel=_rank_kernel, infer=lambda x, **_: Meta(tuple(x.shape[:-2]), "int64"), no_onnx=NO_ONNX,
       doc="The number of singular values above the tolerance, per matrix (int64).")


# -- matrix exponential ---------------------------------------------------------------------------------------
def _expm(a):
    """exp of each matrix of ``a`` (float64): scaling and squaring with an 18-term Taylor series."""
    norm = np.abs(a).sum(-2).max(-1) if a.size else np.zeros(a.shape[:-2])
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) / 0.25))).astype(int)
    s = int(s.max()) if np.ndim(s) else int(s)
    a = a / (2.0 ** s)
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    out, term = eye.copy(), eye.copy()
    for k in range(1, 19):
        term = term @ a / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def _matrix_exp_kernel(x):
    _square(x, "matrix_exp")
    _float(x, "matrix_exp")
    return _expm(x.astype(np.float64)).astype(x.dtype)


def _matrix_exp_grad(ctx):
    """The upper-right block of exp([[X^T, G], [0, X^T]]) (the Frechet derivative's adjoint)."""
    from .shape import concat  # noqa: PLC0415
    from .indexing import getitem  # noqa: PLC0415
    x, g = ctx.inputs[0], ctx.out_grads[0]
    n = x.shape[-1]
    xt = mT(x)
    zero = apply("fill_any_like", xt, value=0.0)
    block = concat([concat([xt, g], axis=-1), concat([zero, xt], axis=-1)], axis=-2)
    e = apply("matrix_exp", block)
    return [getitem(e, (Ellipsis, slice(0, n), slice(n, 2 * n)))]


def_op("matrix_exp", ["X"], ["Out"], kernel=_matrix_exp_kernel, infer=_shape_infer_sq("matrix_exp"),
       grad=_matrix_exp_grad, no_onnx=NO_ONNX, doc="The matrix exponential of each square matrix of X.")

