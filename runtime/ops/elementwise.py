"""Elementwise math: unary functions, powers, min/max, clipping, integer division.

Gradients of the smooth unary functions go through small ``*_grad`` ops that
read the forward output (``tanh_grad(out, g)``), so the backward pass is one
kernel per op rather than a chain of arithmetic.
"""

import numpy as np

from ..dispatch import apply
from . import second_order
from ..dtypes import FLOATS, float32
from ..registry import GRAD_ONLY, def_op
from .math import binary_function, int_zero_check, operands
from .. import tensor as _tensor  # read at call time: Tensor is made after the op declarations
from .gelu_kernels import gelu_grad_kernel, gelu_kernel
from .common import cast, infer_broadcast, reduce_as, same_as, same_as_grad, stop_gradient
from ..hints import Operand, TensorLike


def is_floating(x):
    """Whether a Tensor or static Variable has a floating-point dtype."""
    # Reading the numpy dtype directly keeps the eager hot path cheap.
    return x._value.dtype.kind == "f" if isinstance(x, _tensor.Tensor) else x.dtype in FLOATS


def _floating(x):
    """Float functions of an int/bool tensor compute in float32 (numpy would give float64)."""
    return x if is_floating(x) else cast(x, float32)


# -- smooth unary functions ----------------------------------------------------------------
@np.errstate(over="ignore")
def _sigmoid(x):
    """``1 / (1 + exp(-x))``, each step written into the one fresh array (the same bits as the
    expression: negate, exp, +1 and reciprocal are each rounded once either way)."""
    # exp(-x) overflows to inf below about -88 (float32): 1 / (1 + inf) = 0 is the right limit, and
    # Paddle prints nothing there, where numpy would warn "overflow encountered in exp" (F.sigmoid,
    # F.silu, F.swish). The errstate costs ~6k instructions a call, the in-place steps save ~4k at 8x64;
    # a test of -x against the bound first costs more (a reduction: ~10k), exp(-|x|) forms more ufuncs.
    n = np.negative(x)
    if type(n) is not np.ndarray:  # a 0-d input gives a numpy scalar: no buffer to write into
        return 1 / (1 + np.exp(n))
    np.exp(n, out=n)
    n += 1
    return np.reciprocal(n, out=n)


def _unary(type, kernel, grad=None, onnx=None, doc="", **names):
    """A float/same-dtype unary op, public as ``rt.<type>`` and ``Tensor.<type>`` (this module's function)."""
    def_op(type, ["X"], ["Out"], kernel=kernel, infer=same_as, grad=grad, onnx=onnx, doc=doc,
           api=[type], methods=[type], **names)


def _helper(type, kernel, doc="", grad=None):
    # a gradient of several steps: float16 in float32, rounded once (runtime/fp16_compute.py)
    def_op(type, ["A", "OutGrad"], ["XGrad"], kernel=kernel, infer=same_as_grad, grad=grad, doc=doc,
           no_onnx=GRAD_ONLY, float16_in_float32=True)


def _tanh_grad_grad(ctx):
    """Of ``g (1 - out^2)``: ``-2 out g G`` for out, ``(1 - out^2) G`` for g (second derivatives of tanh)."""
    out, g, gg = ctx.inputs[0], ctx.inputs[1], ctx.out_grads[0]
    one_minus = apply("scale", apply("square", out), scale=-1.0, bias=1.0)
    return [apply("scale", apply("multiply", apply("multiply", out, g), gg), scale=-2.0),
            apply("multiply", one_minus, gg)]


def _sigmoid_grad_grad(ctx):
    """Of ``g out (1 - out)``: ``g (1 - 2 out) G`` for out, ``out (1 - out) G`` for g."""
    out, g, gg = ctx.inputs[0], ctx.inputs[1], ctx.out_grads[0]
    slope = apply("multiply", out, apply("scale", out, scale=-1.0, bias=1.0))
    return [apply("multiply", apply("multiply", g, apply("scale", out, scale=-2.0, bias=1.0)), gg),
            apply("multiply", slope, gg)]


_ZERO_GRAD = lambda ctx: [apply("scale", ctx.out_grads[0], scale=0.0)]  # noqa: E731  (piecewise constant)
_unary("exp", np.exp, lambda ctx: [apply("multiply", ctx.out_grads[0], ctx.outputs[0])], "Exp")
_unary("log", np.log, lambda ctx: [apply("divide", ctx.out_grads[0], ctx.inputs[0])], "Log")
_unary("sqrt", np.sqrt, lambda ctx: [apply("sqrt_grad", ctx.outputs[0], ctx.out_grads[0])], "Sqrt")
_unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda ctx: [apply("rsqrt_grad", ctx.outputs[0], ctx.out_grads[0])],
       "rsqrt", float16_in_float32=True)
_unary("tanh", np.tanh, lambda ctx: [apply("tanh_grad", ctx.outputs[0], ctx.out_grads[0])], "Tanh",
       functional=["tanh"], activation=True)
_unary("sigmoid", _sigmoid, lambda ctx: [apply("sigmoid_grad", ctx.outputs[0], ctx.out_grads[0])], "Sigmoid",
       functional=["sigmoid"], activation=True, float16_in_float32=True)
def _abs_grad(ctx):
    """g * sign(x), and exactly 0 where x == 0 whatever g is: Paddle's abs gradient, so sqrt(|x|)
    or log(|x|) at 0 (an infinite g) gives 0, not 0 * inf = nan."""
    x, g = ctx.inputs[0], ctx.out_grads[0]
    zero = apply("fill_any_like", g, value=0.0, dtype=str(g.dtype))
    at_zero = apply("equal", x, apply("fill_any_like", x, value=0, dtype=str(x.dtype)))
    return [apply("where", at_zero, zero, apply("multiply", g, apply("sign", x)))]


_unary("abs", np.abs, _abs_grad, "Abs")
_unary("sign", np.sign, _ZERO_GRAD, "Sign")
_unary("square", np.square,
       lambda ctx: [apply("multiply", ctx.out_grads[0], apply("scale", ctx.inputs[0], scale=2.0))], "square")
_unary("neg", np.negative, lambda ctx: [apply("scale", ctx.out_grads[0], scale=-1.0)], "Neg",
       grad_reads_no_values=True)
_unary("sin", np.sin, lambda ctx: [apply("multiply", ctx.out_grads[0], apply("cos", ctx.inputs[0]))], "Sin",
       float16_in_float32=True)
_unary("cos", np.cos, lambda ctx: [apply("multiply", ctx.out_grads[0],
                                         apply("neg", apply("sin", ctx.inputs[0])))], "Cos",
       float16_in_float32=True)
_unary("reciprocal", np.reciprocal,
       lambda ctx: [apply("neg", apply("multiply", ctx.out_grads[0], apply("square", ctx.outputs[0])))],
       "Reciprocal", float16_in_float32=True)
_unary("floor", np.floor, _ZERO_GRAD, "Floor")
_unary("ceil", np.ceil, _ZERO_GRAD, "Ceil")
_unary("round", np.round, _ZERO_GRAD, "Round")
_helper("sqrt_grad", lambda out, g: g / (2 * out), "d sqrt: g / (2 out)", grad=second_order.sqrt_grad_grad)
_helper("rsqrt_grad", lambda out, g: g * (-0.5) * out * out * out, "d rsqrt: -g out^3 / 2",
        grad=second_order.rsqrt_grad_grad)
_helper("tanh_grad", lambda out, g: g * (1 - out * out), "d tanh: g (1 - out^2)", grad=_tanh_grad_grad)
_helper("sigmoid_grad", lambda out, g: g * out * (1 - out), "d sigmoid: g out (1 - out)", grad=_sigmoid_grad_grad)
def_op("gelu", ["X"], ["Out"], attrs={"approximate": False}, kernel=gelu_kernel, infer=same_as,
       grad=lambda ctx: [apply("gelu_grad", ctx.inputs[0], ctx.out_grads[0],
                               approximate=ctx.attrs["approximate"])],
       onnx="gelu", api=["gelu"], functional=["gelu"], activation=True,
       float16_in_float32=True)  # in float16 arithmetic 1 + erf cancels: gelu(-3.377) was 33% off
def_op("gelu_grad", ["X", "OutGrad"], ["XGrad"], attrs={"approximate": False}, kernel=gelu_grad_kernel,
       infer=same_as_grad, no_onnx=GRAD_ONLY, grad=second_order.gelu_grad_grad, float16_in_float32=True)


# -- powers -----------------------------------------------------------------------------
def _int_power(x, y):
    """x ** y of integers as Paddle's kernel: a negative exponent gives 1 for 1, +-1 for -1 and 0 for the
    rest (the truncated real power; numpy raises instead, and x ** -1 would hang Paddle's scalar pow)."""
    neg = y < 0
    if not np.any(neg):
        return np.power(x, y)
    out = np.power(x, np.where(neg, 0, y).astype(y.dtype, copy=False))
    sign = np.where(y % 2 == 0, 1, -1).astype(out.dtype, copy=False)
    tiny = np.where(x == 1, 1, np.where(x == -1, sign, 0)).astype(out.dtype, copy=False)
    return np.where(neg, tiny, out)


def _elementwise_pow_kernel(x, y):
    if x.dtype.kind in "iu" and y.dtype.kind in "iu":
        return _int_power(x, y)
    return np.power(x, y)


def _pow_kernel(x, factor=1.0):
    if x.dtype.kind in "iub":  # Paddle truncates a float exponent of an int tensor: pow(x, 2.5) is x ** 2
        return _int_power(x, np.asarray(int(factor), x.dtype)) if x.dtype.kind != "b" \
            else np.power(x, int(factor)).astype(bool)  # numpy gives an int: bool as the declared dtype
    return np.power(x, x.dtype.type(factor))


def _pow_grad(ctx):
    x, g, f = ctx.inputs[0], ctx.out_grads[0], ctx.attrs["factor"]
    return [apply("multiply", g, apply("scale", apply("pow", x, factor=f - 1.0), scale=f))]


def _elementwise_pow_grad(ctx):
    x, y = ctx.inputs
    g, out = ctx.out_grads[0], ctx.outputs[0]
    gx = apply("multiply", g, apply("multiply", y, apply("elementwise_pow", x, apply("scale", y, bias=-1.0))))
    gy = apply("multiply", g, apply("multiply", out, apply("log", x)))
    # at x == 0 with y >= 0 the exponent's gradient is 0 (as in Paddle), not out * log(0) = 0 * -inf = nan
    flat = apply("logical_and", apply("equal", x, apply("fill_any_like", x, value=0.0, dtype=str(x.dtype))),
                 apply("greater_equal", y, apply("fill_any_like", y, value=0.0, dtype=str(y.dtype))))
    gy = apply("where", flat, apply("fill_any_like", gy, value=0.0, dtype=str(gy.dtype)), gy)
    return [reduce_as(gx, x), reduce_as(gy, y)]


def_op("pow", ["X"], ["Out"], attrs={"factor": 1.0}, kernel=_pow_kernel, infer=same_as, grad=_pow_grad,
       onnx="pow", api=["pow"], methods=["pow"], doc="x ** factor for a Python-number exponent.",
       float16_in_float32=True)
def_op("elementwise_pow", ["X", "Y"], ["Out"], kernel=_elementwise_pow_kernel, infer=infer_broadcast,
       grad=_elementwise_pow_grad, onnx="Pow", api=["pow"], methods=["pow"], float16_in_float32=True,
       doc="x ** y for a tensor exponent (broadcasting).")


# -- min / max / clip ---------------------------------------------------------------------
def _select_grad(mask_type):
    """Gradient of maximum/minimum: the winner takes it, a tie splits it in halves (as Paddle 3
    and PyTorch do; logaddexp's gradient at x == y is then exact)."""
    def grad(ctx):
        x, y = ctx.inputs
        g = ctx.out_grads[0]
        take_x, tie = apply(mask_type, x, y), apply("equal", x, y)
        zero = apply("fill_any_like", g, value=0.0, dtype=str(g.dtype))
        half = apply("where", tie, apply("scale", g, scale=0.5), zero)
        gx = apply("where", take_x, g, half)
        gy = apply("where", take_x, zero, apply("where", tie, half, g))
        return [reduce_as(gx, x), reduce_as(gy, y)]
    return grad


def_op("maximum", ["X", "Y"], ["Out"], kernel=np.maximum, infer=infer_broadcast,
       grad=_select_grad("greater_than"), onnx="Max", api=["maximum"], methods=["maximum"])
def_op("minimum", ["X", "Y"], ["Out"], kernel=np.minimum, infer=infer_broadcast,
       grad=_select_grad("less_than"), onnx="Min", api=["minimum"], methods=["minimum"])


def _clip_bounds(x, min, max):
    """The bounds Paddle's clip applies: a float tensor's missing bound is its dtype's finite extreme,
    so clip(x, min=0.) turns inf into the largest finite value (and its gradient there is 0)."""
    if x.dtype.kind == "f":
        info = np.finfo(x.dtype)
        return (info.min if min is None else x.dtype.type(min)), (info.max if max is None else x.dtype.type(max))
    return (None if min is None else x.dtype.type(min)), (None if max is None else x.dtype.type(max))


def _clip_kernel(x, min=None, max=None):
    lo, hi = _clip_bounds(x, min, max)
    if lo is None and hi is None:
        return x.copy()
    return np.clip(x, lo, hi)


def _clip_grad_kernel(x, g, min=None, max=None):
    lo, hi = _clip_bounds(x, min, max)
    inside = np.ones(x.shape, dtype=bool)
    if lo is not None:
        inside &= x >= lo
    if hi is not None:
        inside &= x <= hi
    return g * inside


def_op("clip", ["X"], ["Out"], attrs={"min": None, "max": None}, kernel=_clip_kernel, infer=same_as,
       grad=lambda ctx: [apply("clip_grad", ctx.inputs[0], ctx.out_grads[0], **ctx.attrs)],
       onnx="clip", api=["clip"], methods=["clip"])
def_op("clip_grad", ["X", "OutGrad"], ["XGrad"], attrs={"min": None, "max": None}, kernel=_clip_grad_kernel,
       infer=same_as_grad, no_onnx=GRAD_ONLY, grad=second_order.clip_grad_grad)


# -- integer-style division -------------------------------------------------------------------
def _checked(fn, what):
    check = int_zero_check(what)

    def kernel(x, y):
        check(x, y)
        return fn(x, y)
    kernel.__name__ = f"{what.split()[0]}_kernel"
    return kernel


def_op("floor_divide", ["X", "Y"], ["Out"], kernel=_checked(np.floor_divide, "floor_divide (//)"), infer=infer_broadcast,
       onnx="floor_div_mod", api=["floor_divide"], methods=["floor_divide"], doc="Floor division (Python's //).")
def_op("remainder", ["X", "Y"], ["Out"], kernel=_checked(np.mod, "remainder (%)"), infer=infer_broadcast,
       grad=lambda ctx: [reduce_as(ctx.out_grads[0], ctx.inputs[0]),
                         reduce_as(apply("multiply", apply("neg", ctx.out_grads[0]),
                                         apply("floor_divide", ctx.inputs[0], ctx.inputs[1])), ctx.inputs[1])],
       onnx="floor_div_mod", api=["remainder", "mod", "floor_mod"],
       methods=["remainder", "mod", "floor_mod"],
       doc="Python-style modulo (result has the sign of y).")


# -- public functions ----------------------------------------------------------------------------
def _float_unary(type, doc=None):
    def fn(x: TensorLike, name: str | None = None) -> TensorLike:
        """The elementwise function of this function's name (``rt.exp`` runs op ``exp``); int and bool inputs
        compute in float32."""
        return apply(type, x if is_floating(x) else cast(x, float32))
    fn.__name__ = type
    if doc:
        fn.__doc__ = doc
    return fn


def _same_unary(type):
    def fn(x: TensorLike, name: str | None = None) -> TensorLike:
        """The elementwise function of this function's name (``rt.abs`` runs op ``abs``), in the input's dtype."""
        return apply(type, x)
    fn.__name__ = type
    return fn


exp = _float_unary("exp")
log = _float_unary("log")
sqrt = _float_unary("sqrt")
rsqrt = _float_unary("rsqrt")
tanh = _float_unary("tanh", "Hyperbolic tangent; int and bool inputs compute in float32.")
sigmoid = _float_unary("sigmoid", "``1 / (1 + exp(-x))``; int and bool inputs compute in float32.")
sin = _float_unary("sin")
cos = _float_unary("cos")
reciprocal = _float_unary("reciprocal")


def _rounding_unary(type):
    float_fn = _float_unary(type)

    def fn(x: TensorLike, name: str | None = None) -> TensorLike:
        """The rounding function of this function's name (``rt.floor`` runs op ``floor``); an int input is
        returned as an int copy, as in Paddle (a float32 detour would change integers above 2**24)."""
        if not is_floating(x) and str(x.dtype) != "bool":
            return apply("assign", x)
        return float_fn(x)
    fn.__name__ = type
    return fn


floor = _rounding_unary("floor")
ceil = _rounding_unary("ceil")
_round0 = _rounding_unary("round")


def round(x: TensorLike, decimals: int = 0, name: str | None = None) -> TensorLike:  # noqa: A001
    """Round half to even; ``decimals`` is Paddle's second parameter, so a positional ``round(x, 2)``
    must not bind ``name``. Only ``decimals=0`` is supported: refused rather than rounded to integers."""
    if decimals:
        raise NotImplementedError(f"round: decimals={decimals!r} is not supported by runtime (only 0)")
    return _round0(x)
abs = _same_unary("abs")  # noqa: A001
sign = _same_unary("sign")
square = _same_unary("square")
neg = _same_unary("neg")


def gelu(x: TensorLike, approximate: bool = False, name: str | None = None) -> TensorLike:
    """GELU activation, exact (erf) or with the tanh approximation when ``approximate``; int inputs become float32."""
    return apply("gelu", _floating(x), approximate=bool(approximate))


def pow(x: TensorLike, y: Operand, name: str | None = None) -> TensorLike:  # noqa: A001
    """``paddle.pow(x, y)``: a Python-number exponent is an attr and keeps an int ``x`` int, the exponent
    truncated (Paddle: pow(int32 x, 2.5) is x ** 2 in int32); a tensor exponent is an input."""
    if isinstance(y, (int, float)) and not isinstance(y, bool) and not hasattr(y, "dtype"):
        return apply("pow", x, factor=float(y))
    a, b = operands(x, y)
    return apply("elementwise_pow", a, b)


def power_operator(x: TensorLike, y: Operand) -> TensorLike:
    """``x ** y``: unlike ``pow``, a Python float exponent makes an int ``x`` float32 (as Paddle's operator)."""
    if isinstance(y, float) and not is_floating(x):
        x = cast(x, float32)
    return pow(x, y)


maximum = binary_function("maximum", """Elementwise maximum of ``x`` and ``y`` (broadcast, promoted).""")
minimum = binary_function("minimum", """Elementwise minimum of ``x`` and ``y`` (broadcast, promoted).""")


def _symbolic(v):
    """Whether ``v`` is a static Variable (a bound whose value is known only when the Program runs)."""
    return hasattr(v, "block") and not isinstance(v, _tensor.Tensor)


def _clip_by_tensors(x, lo, hi):
    """clip with a run-time bound (Paddle's is a 1-element tensor) by selects: the values and x's gradient
    (passed where lo <= x <= hi) are those of the clip op the eager path runs with the bound's value;
    the bounds get no gradient, as in Paddle."""
    from .shape import reshape  # noqa: PLC0415  (shape's module imports math, which this one does)
    for bound, outside in ((lo, "less_than"), (hi, "greater_than")):
        if bound is None:
            continue
        if not hasattr(bound, "dtype"):  # a Python number next to a tensor bound
            bound = apply("fill_any_like", x, value=float(bound), dtype=str(x.dtype))
        else:
            bound = stop_gradient(reshape(bound if bound.dtype == x.dtype else cast(bound, x.dtype), []))
        x = apply("where", apply(outside, x, bound), bound, x)
    return x


def clip(x: TensorLike, min: float | None = None, max: float | None = None,
         name: str | None = None) -> TensorLike:  # noqa: A002
    """``x`` limited to [``min``, ``max``]; a None bound is not applied. An int ``x`` with a float bound
    computes in float32, as in Paddle (an int result would truncate the bound: clip(-3, min=0.5) -> 0)."""
    if _symbolic(min) or _symbolic(max):
        return _clip_by_tensors(x, min, max)
    if min is not None and max is not None and min > max:  # numpy would silently give max everywhere
        raise ValueError(f"clip: min ({min}) must not exceed max ({max})")
    if not is_floating(x) and (isinstance(min, float) or isinstance(max, float)):
        x = cast(x, float32)
    return apply("clip", x, min=None if min is None else float(min), max=None if max is None else float(max))


floor_divide = binary_function("floor_divide", """``x // y`` elementwise (rounds toward negative infinity, like
    Python).""")
remainder = binary_function("remainder", """``x % y`` elementwise, with the sign of ``y`` like Python. Also ``mod``.""")


mod = floor_mod = remainder
