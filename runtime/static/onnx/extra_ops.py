"""ONNX lowerings of the Paddle 2.x extras (``runtime/ops/math_extra.py``, ``index_extra.py``):
log2/log10 and expm1 (no ONNX node of their own), trunc, einsum, gather_nd, scatter_nd_add and the
along-axis assignment; see ``ops`` for the ``fn(ex, op)`` contract."""
import math

from .lowering import lowering


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
