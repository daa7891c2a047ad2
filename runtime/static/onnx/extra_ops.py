"""ONNX lowerings of the Paddle 2.x extras (``runtime/ops/math_extra.py``, ``index_extra.py``):
log2/log10 and expm1 (no ONNX node of their own), trunc, einsum, scatter_nd_add, the along-axis
assignment, scatter, diagonal and atan2; see ``ops`` for the ``fn(ex, op)`` contract."""
import math

import numpy as np

from .lowering import ints, lowering


@lowering("log_base")
def _log_base(ex, op):
    base = {"log2": 2.0, "log10": 10.0}[op.type]
    ex.node("Div", [ex.node("Log", [ex.i("X")]), ex.const(math.log(base), ex.var("X").dtype)], ex.o("Out"))


@lowering("expm1")
def _expm1(ex, op):
    ex.node("Sub", [ex.node("Exp", [ex.i("X")]), ex.const(1.0, ex.var("X").dtype)], ex.o("Out"))


@lowering("trunc")
def _trunc(ex, op):
    x = ex.i("X")
    ex.node("Mul", [ex.node("Sign", [x]), ex.node("Floor", [ex.node("Abs", [x])])], ex.o("Out"))


@lowering("einsum")
def _einsum(ex, op):
    ex.node("Einsum", ex.ins("Operands"), ex.o("Out"), equation=op.attrs["equation"])


@lowering("scatter_nd_add")
def _scatter_nd_add(ex, op):
    if ex.opset < 16:
        raise NotImplementedError("ONNX export: scatter_nd_add needs opset 16 (ScatterND reduction='add')")
    ex.node("ScatterND", [ex.i("X"), ex.i("Index"), ex.i("Updates")], ex.o("Out"), reduction="add")


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
    if ex.opset < 16:
        raise NotImplementedError("ONNX export: scatter(overwrite=False) needs opset 16 (ScatterND reduction='add')")
    zeroed = ex.node("ScatterND", [x, idx, ex.node("Mul", [updates, ex.const(0, ex.var("Updates").dtype)])])
    ex.node("ScatterND", [zeroed, idx, updates], ex.o("Out"), reduction="add")


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
