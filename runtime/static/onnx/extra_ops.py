"""ONNX lowerings of the Paddle 2.x extras (``runtime/ops/math_extra.py``, ``index_extra.py``):
log2/log10, expm1 and log1p (no ONNX node of their own), trunc, einsum, scatter_nd_add, the along-axis
assignment, scatter, diagonal and atan2; see ``ops`` for the ``fn(ex, op)`` contract."""
import math

import numpy as np

from .lowering import ints, lowering, reduce


@lowering("log_base")
def _log_base(ex, op):
    base = {"log2": 2.0, "log10": 10.0}[op.type]
    ex.node("Div", [ex.node("Log", [ex.i("X")]), ex.const(math.log(base), ex.var("X").dtype)], ex.o("Out"))


@lowering("expm1")
def _expm1(ex, op):
    ex.node("Sub", [ex.node("Exp", [ex.i("X")]), ex.const(1.0, ex.var("X").dtype)], ex.o("Out"))


@lowering("log1p")
def _log1p(ex, op):  # ONNX has no Log1p: log(1 + x), as the node set allows
    ex.node("Log", [ex.node("Add", [ex.i("X"), ex.const(1.0, ex.var("X").dtype)])], ex.o("Out"))


@lowering("trunc")
def _trunc(ex, op):
    x = ex.i("X")
    ex.node("Mul", [ex.node("Sign", [x]), ex.node("Floor", [ex.node("Abs", [x])])], ex.o("Out"))


@lowering("einsum")
def _einsum(ex, op):
    if ex.opset < 12:
        raise NotImplementedError("ONNX export: einsum needs opset 12 (Einsum)")
    ex.node("Einsum", ex.ins("Operands"), ex.o("Out"), equation=op.attrs["equation"])


@lowering("scatter_nd_add")
def _scatter_nd_add(ex, op):
    if ex.opset >= 16:
        ex.node("ScatterND", [ex.i("X"), ex.i("Index"), ex.i("Updates")], ex.o("Out"), reduction="add")
        return
    _add_at_pre16(ex, ex.i("X"), ex.var("X"), ex.i("Index"), ex.var("Index").shape[-1], ex.var("Index").ndim,
                  ex.i("Updates"), ex.o("Out"))


def _add_at_pre16(ex, x, xv, index, k, index_rank, updates, out):
    """``x`` plus the updates sent to the index tuples, before opset 16 (ScatterND has no ``add``): the
    product of one one-hot per index component (``[n, S0..Sk-1]``) times the updates, summed over n."""
    dt, rest = xv.dtype, xv.ndim - k
    if k == 0:  # every update goes to the whole of x
        upd = ex.node("Reshape", [updates, ex.node("Concat", [ints(ex, [-1]), ex.node("Shape", [x])], axis=0)])
        ex.node("Add", [x, reduce(ex, "ReduceSum", upd, [0], False)], out)
        return
    idx = ex.node("Reshape", [index, ints(ex, [-1, k])])
    shape, hot = ex.node("Shape", [x]), None
    for j in range(k):
        col = ex.node("Gather", [idx, ex.const(np.int64(j))], axis=1)
        depth = ex.node("Gather", [shape, ex.const(np.int64(j))])
        h = ex.node("OneHot", [col, depth, ex.const(np.asarray([0, 1], dtype=dt))], axis=-1)
        others = [a for a in range(1, k + 1) if a != j + 1]
        h = ex.node("Unsqueeze", [h, ints(ex, others)]) if others else h
        hot = h if hot is None else ex.node("Mul", [hot, h])
    if rest:
        hot = ex.node("Unsqueeze", [hot, ints(ex, list(range(k + 1, k + 1 + rest)))])
        tail = ex.node("Slice", [ex.node("Shape", [updates]), ints(ex, [index_rank - 1]), ints(ex, [2 ** 62])])
        upd = ex.node("Reshape", [updates, ex.node("Concat", [ints(ex, [-1]), tail], axis=0)])
    else:
        upd = ex.node("Reshape", [updates, ints(ex, [-1])])
    upd = ex.node("Unsqueeze", [upd, ints(ex, list(range(1, k + 1)))]) if k else upd
    ex.node("Add", [x, reduce(ex, "ReduceSum", ex.node("Mul", [hot, upd]), [0], False)], out)


@lowering("put_along_axis")
def _put_along_axis(ex, op):
    ex.node("ScatterElements", [ex.i("X"), ex.i("Index"), ex.i("Updates")], ex.o("Out"),
            axis=int(op.attrs.get("axis", -1)))


@lowering("scatter")
def _scatter(ex, op):
    """Rows ``index`` of X replaced by (overwrite) or zeroed and summed from (opset 16's add) the updates."""
    idx = ex.node("Reshape", [ex.i("Index"), ints(ex, [-1, 1])])
    x, updates = ex.i("X"), ex.i("Updates")
    if op.attrs.get("overwrite", True):
        ex.node("ScatterND", [x, idx, updates], ex.o("Out"))
        return
    zeroed = ex.node("ScatterND", [x, idx, ex.node("Mul", [updates, ex.const(0, ex.var("Updates").dtype)])])
    if ex.opset >= 16:
        ex.node("ScatterND", [zeroed, idx, updates], ex.o("Out"), reduction="add")
    else:
        _add_at_pre16(ex, zeroed, ex.var("X"), idx, 1, 2, updates, ex.o("Out"))


@lowering("diagonal")
def _diagonal(ex, op):
    """The two axes moved first, a GatherND of the (row, col) pairs, the diagonal moved last."""
    xv = ex.var("X")
    a1, a2 = op.attrs.get("axis1", 0) % xv.ndim, op.attrs.get("axis2", 1) % xv.ndim
    n, m, k = xv.shape[a1], xv.shape[a2], int(op.attrs.get("offset", 0))
    if n < 0 or m < 0:
        raise NotImplementedError(f"ONNX export: diagonal over dims of unknown size (shape {list(xv.shape)})")
    rest = [i for i in range(xv.ndim) if i not in (a1, a2)]
    size = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    pairs = np.stack([np.arange(size) + max(-k, 0), np.arange(size) + max(k, 0)], axis=1)
    front = ex.node("Transpose", [ex.i("X")], perm=[a1, a2] + rest)
    diag = ex.node("GatherND", [front, ints(ex, pairs.reshape(size, 2))])
    ex.node("Transpose", [diag], ex.o("Out"), perm=list(range(1, len(rest) + 1)) + [0])


@lowering("atan2")
def _atan2(ex, op):
    """``atan(x / y)`` moved to the right quadrant by the signs (0 where both are 0, as numpy)."""
    x, y, dt = ex.i("X"), ex.i("Y"), ex.var("X").dtype
    zero, pi = ex.const(0, dt), ex.const(np.pi, dt)
    base = ex.node("Atan", [ex.node("Div", [x, y])])
    x_neg = ex.node("Less", [x, zero])
    shift = ex.node("Where", [x_neg, ex.node("Neg", [pi]), pi])  # y < 0: add pi toward x's sign
    left = ex.node("Add", [base, shift])
    half = ex.node("Where", [x_neg, ex.const(-np.pi / 2, dt),
                             ex.node("Where", [ex.node("Greater", [x, zero]), ex.const(np.pi / 2, dt), zero])])
    on_axis = ex.node("Where", [ex.node("Less", [y, zero]), left, base])
    ex.node("Where", [ex.node("Equal", [y, zero]), half, on_axis], ex.o("Out"))
