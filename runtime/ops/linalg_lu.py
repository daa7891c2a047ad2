"""LU factorisation and least squares as ops: ``lu`` (Paddle's packed LU, 1-based int32 pivots, infos),
``lu_pivots`` (the permutation matrix of such pivots) and ``lstsq`` (LAPACK's answer through numpy,
with the outputs Paddle gives for each driver).

``lu`` has the gradient of a square matrix's packed factors (``lu_unpack``'s L and U pass theirs to it:
it is a composite of slicing ops on the packed matrix); ``lstsq``'s solution has the gradient of ``pinv(x) @ y``.
"""
import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op
from .linalg_grad import lu_grad, matmul, pinv_grad
from .linalg_ops import API, NO_ONNX, _float


def _lu_kernel(x, pivot=True):
    if x.ndim < 2:
        raise ValueError(f"lu: x must have rank >= 2, got shape {list(x.shape)}")
    if not pivot:
        raise NotImplementedError("lu: pivot=False is not supported on CPU (as Paddle's CPU kernel)")
    _float(x, "lu")
    m, n = x.shape[-2:]
    k = min(m, n)
    a = np.array(x, dtype=np.float64).reshape((-1, m, n))
    b = a.shape[0]
    piv = np.zeros((b, k), np.int32)
    info = np.zeros(b, np.int32)
    rows = np.arange(b)
    for j in range(k):  # partial pivoting, one column at a time for the whole batch
        p = j + np.argmax(np.abs(a[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        a[rows, j], a[rows, p] = a[rows, p].copy(), a[rows, j].copy()
        d = a[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1.0, d)
        a[:, j + 1:, j] = np.where(zero[:, None], a[:, j + 1:, j], a[:, j + 1:, j] / safe[:, None])
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j:j + 1] * a[:, j:j + 1, j + 1:]
    lead = x.shape[:-2]
    return a.reshape(x.shape).astype(x.dtype), piv.reshape(lead + (k,)), info.reshape(lead)


def _lu_infer(x, pivot=True):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    lead = tuple(x.shape[:-2])
    return Meta(x.shape, x.dtype), Meta(lead + (k,), "int32"), Meta(lead, "int32")


def_op("lu", ["X"], ["Out", "Pivots", "Infos"], attrs={"pivot": True}, kernel=_lu_kernel, methods=["lu"],
       module=API,  infer=_lu_infer,
       no_onnx=NO_ONNX, grad=lambda ctx: [lu_grad(ctx.outputs[0], ctx.outputs[1], ctx.out_grads[0])],
       doc="Packed LU (L below the diagonal, unit diagonal implied; U on and above), "
       "1-based row-swap pivots, and per matrix 0 or the 1-based index of the first zero pivot.")


def _pivots_kernel(pivots, n=0, dtype="float32"):
    k = pivots.shape[-1]
    flat = pivots.reshape((-1, k)).astype(np.int64) - 1
    perm = np.tile(np.arange(n), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(k):  # apply the swaps in order: row j of the permuted matrix came from row perm[j]
        p = flat[:, j]
        perm[rows, j], perm[rows, p] = perm[rows, p], perm[rows, j].copy()
    # P with X = P L U: column j of P is the unit vector of the row perm[j] moved to j
    out = np.zeros((flat.shape[0], n, n), dtype)
    out[rows[:, None], perm, np.arange(n)[None, :]] = 1
    return out.reshape(pivots.shape[:-1] + (n, n))


def_op("lu_pivots", ["Pivots"], ["Out"], attrs={"n": 0, "dtype": "float32"}, kernel=_pivots_kernel,
       infer=lambda p, n=0, dtype="float32": Meta(tuple(p.shape[:-1]) + (n, n), dtype), no_onnx=NO_ONNX,
       doc="The n x n permutation matrix P (X = P L U) of lu's 1-based pivots.")


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_kernel(x, y, rcond=None, driver="gelsy"):
    if driver not in _DRIVERS:
        raise ValueError(f"lstsq: driver must be one of {list(_DRIVERS)}, got {driver!r}")
    if x.ndim < 2 or y.ndim < 2 or x.shape[-2] != y.shape[-2]:
        raise ValueError(f"lstsq: x [*, M, N] and y [*, M, K] must have the same number of rows, got "
                         f"{list(x.shape)} and {list(y.shape)}")
    _float(x, "lstsq")
    m, n = x.shape[-2:]
    lead = x.shape[:-2]
    a = x.reshape((-1, m, n)).astype(np.float64)
    b = np.broadcast_to(y, lead + y.shape[-2:]).reshape((-1, m, y.shape[-1])).astype(np.float64)
    cut = np.finfo(x.dtype).eps * max(m, n) if rcond is None else rcond
    sols, ranks, svals = [], [], []
    for ai, bi in zip(a, b):
        sol, _, rank, sv = np.linalg.lstsq(ai, bi, rcond=cut)
        sols.append(sol)
        ranks.append(rank)
        svals.append(sv)
    k = y.shape[-1]
    sol = np.stack(sols).reshape(lead + (n, k)) if sols else np.zeros(lead + (n, k))
    rank = np.asarray(ranks, np.int32).reshape(lead)
    if driver != "gelsy" and m > n:  # LAPACK's residual sums of squares, per column of y
        res = ((np.einsum("bmn,bnk->bmk", a, sol.reshape((-1, n, k))) - b) ** 2).sum(-2).reshape(lead + (k,))
    else:
        res = np.zeros(lead + (0,))
    if driver in ("gelsd", "gelss"):
        sv = np.stack(svals).reshape(lead + (min(m, n),))
    else:
        sv = np.zeros(lead + (0,))
    if driver == "gels":  # gels computes no rank: an empty int64 tensor, as Paddle's
        rank = np.zeros((0,), np.int64)
    dt = x.dtype
    return sol.astype(dt), res.astype(dt), rank, sv.astype(dt)


def _lstsq_infer(x, y, rcond=None, driver="gelsy"):
    m, n = x.shape[-2], x.shape[-1]
    k = y.shape[-1]
    lead = tuple(x.shape[:-2])
    known = m >= 0 and n >= 0
    res = lead + (0 if driver == "gelsy" else (k if m > n else 0) if known else -1,)
    sv = lead + ((min(m, n) if known else -1) if driver in ("gelsd", "gelss") else 0,)
    rank = Meta((0,), "int64") if driver == "gels" else Meta(lead, "int32")
    return Meta(lead + (n, k), x.dtype), Meta(res, x.dtype), rank, Meta(sv, x.dtype)


def _lstsq_grad(ctx):
    """The solution is pinv(x) @ y (minimum norm): its gradient, through pinv's."""
    x, y = ctx.inputs
    g = ctx.out_grads[0]
    if g is None:
        return [None, None]
    p = apply("pinv", x)
    gy = matmul(p, g, True, False)
    gx = pinv_grad(x, p, matmul(g, y, False, True))
    from .common import reduce_as  # noqa: PLC0415
    return [reduce_as(gx, x), reduce_as(gy, y)]


def_op("lstsq", ["X", "Y"], ["Solution", "Residuals", "Rank", "SingularValues"],
       attrs={"rcond": None, "driver": "gelsy"}, kernel=_lstsq_kernel, methods=["lstsq"], module=API,
       infer=_lstsq_infer, grad=_lstsq_grad,
       no_onnx=NO_ONNX, doc="The least-squares solution of X Out = Y, residuals, rank and singular values.")
