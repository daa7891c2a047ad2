"""Paddle's special functions with their own kernels: erfinv, lgamma/gammaln, digamma, polygamma,
gammainc/gammaincc, the modified Bessel functions i0/i0e/i1/i1e.

scipy is not a dependency, so the kernels are numpy series: they compute in float64 (a float32
input is rounded once at the end) and agree with Paddle 3.3 to float32 precision, including its
values at the poles (``digamma(0) = -inf``, ``digamma(-1) = nan``, ``lgamma(0) = inf``,
``erfinv(1) = inf``). Gradients are Paddle's: through other special ops (``lgamma' = digamma``,
``i0' = i1``), and gammainc/gammaincc differentiate only in their second argument, as in Paddle.
"""
import math as _math

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op
from .common import broadcast_shape, reduce_as, same_as
from .elementwise import _floating
from .math import operands

_NO_ONNX = "ONNX has no node for this special function"


def _f64(fn):
    """A float64 series evaluated for any float input, returned in the input's dtype."""
    def kernel(x, *rest):
        return np.asarray(fn(np.asarray(x, np.float64), *rest)).astype(x.dtype)
    kernel.__name__ = fn.__name__
    return kernel


# -- gamma family -------------------------------------------------------------------------------------
_lgamma_scalar = np.vectorize(lambda v: _math.lgamma(v) if not (v <= 0 and v == _math.floor(v)) else _math.inf,
                              otypes=[np.float64])


def _lgamma(x):
    return _lgamma_scalar(x) if x.size else x.copy()


def _hurwitz(s, x):
    """Hurwitz zeta ``sum_k (x + k) ** -s`` (s >= 2): the first terms summed until x + k >= s + 12,
    then the Euler-Maclaurin tail (Bernoulli terms to B_14, exact to float64 there)."""
    x = np.array(x, np.float64)
    acc = np.zeros_like(x)
    bound = s + 12.0
    if x.size and np.nanmin(x) < -1e5:
        raise ValueError("polygamma: x below -1e5 is not supported (its series would take that many steps)")
    while True:
        small = x < bound
        if not small.any():
            break
        acc += np.where(small, np.power(np.where(small, x, 1.0), -s), 0.0)
        x = np.where(small, x + 1.0, x)
    tail = x ** (1.0 - s) / (s - 1.0) + 0.5 * x ** -s
    bern = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
    rising, fact = s, 2.0
    for k, b in enumerate(bern, start=1):
        tail += b / fact * rising * x ** (-s - 2 * k + 1)
        rising *= (s + 2 * k - 1) * (s + 2 * k)
        fact *= (2 * k + 1) * (2 * k + 2)
    return acc + tail


def _digamma(x):
    x = np.array(x, np.float64)
    pole = (x <= 0) & (x == np.floor(x))
    neg = (x < 0) & ~pole
    if neg.any():
        # reflection, psi(x) = psi(1 - x) - pi / tan(pi x): the recurrence below then starts above 0
        out = _digamma(np.where(neg, 1.0 - x, x))
        return np.where(neg, out - np.pi / np.tan(np.pi * np.where(neg, x, 0.5)), out)
    z = np.where(pole, 1.0, x)
    acc = np.zeros_like(z)
    while True:  # psi(z) = psi(z + 1) - 1/z, up to where the asymptotic series is exact
        small = z < 10.0
        if not small.any():
            break
        acc -= np.where(small, 1.0 / z, 0.0)
        z = np.where(small, z + 1.0, z)
    z2 = 1.0 / (z * z)
    series = z2 * (1 / 12 - z2 * (1 / 120 - z2 * (1 / 252 - z2 * (1 / 240 - z2 * (1 / 132)))))
    out = acc + np.log(z) - 0.5 / z - series
    return np.where(pole, np.where(x == 0, -np.inf, np.nan), out)


def _polygamma(x, n=1):
    if n == 0:
        return _digamma(x)
    x = np.asarray(x, np.float64)
    pole = (x <= 0) & (x == np.floor(x))
    out = (-1.0) ** (n + 1) * _math.factorial(n) * _hurwitz(n + 1.0, np.where(pole, 1.0, x))
    return np.where(pole, np.inf if n % 2 else np.nan, out)


def _gammainc_scalar(a, x):
    """Regularized lower incomplete gamma P(a, x): the series below a + 1, the continued fraction above."""
    if np.isnan(a) or np.isnan(x) or a < 0 or x < 0:
        return _math.nan
    if x == 0:
        return 0.0
    if a == 0:
        return 1.0
    if _math.isinf(x):
        return 1.0
    lead = a * _math.log(x) - x - _math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        return total * _math.exp(lead)
    # Lentz's continued fraction for Q(a, x)
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return 1.0 - _math.exp(lead) * h


_gammainc_vec = np.vectorize(_gammainc_scalar, otypes=[np.float64])


def _gammainc(a, x):
    out = _gammainc_vec(np.asarray(a, np.float64), np.asarray(x, np.float64))
    return out.astype(np.result_type(a, x))


def _gammaincc(a, x):
    return (1.0 - _gammainc_vec(np.asarray(a, np.float64), np.asarray(x, np.float64))).astype(np.result_type(a, x))


# -- erfinv -------------------------------------------------------------------------------------------
_erf_vec = np.vectorize(_math.erf, otypes=[np.float64])


def _erfinv(y):
    """Giles' approximation refined by Newton steps on math.erf (correctly rounded): float64-exact
    away from +-1; +-1 and beyond give +-inf (Paddle's values there)."""
    y = np.asarray(y, np.float64)
    inside = np.abs(y) < 1
    yc = np.where(inside, y, 0.0)
    w = -np.log((1.0 - yc) * (1.0 + yc))
    small = w < 5.0
    ws, wl = w - 2.5, np.sqrt(np.where(small, 5.0, w)) - 3.0
    ps = np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941], ws)
    pl = np.polyval([-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682], wl)
    x = np.where(small, ps, pl) * yc
    for _ in range(3):
        x = x - (_erf_vec(x) - yc) / (2.0 / _math.sqrt(_math.pi) * np.exp(-x * x))
    return np.where(inside, x, np.where(np.isnan(y), np.nan, np.copysign(np.inf, y)))


# -- modified Bessel functions of the first kind, orders 0 and 1 ---------------------------------------
def _bessel_scaled(x, order):
    """``I_order(|x|) * exp(-|x|)``: the power series up to |x| = 20, the asymptotic series beyond
    (both exact to float64 there)."""
    a = np.abs(np.asarray(x, np.float64))
    small = a <= 20.0
    s = np.where(small, a, 0.0)
    half2 = (s / 2) ** 2
    term = (s / 2) ** order / _math.factorial(order)
    total = term.copy()
    for k in range(1, 70):
        term = term * half2 / (k * (k + order))
        total += term
    series = total * np.exp(-s)
    big = np.where(small, 21.0, a)
    mu, t, asym = 4.0 * order * order, np.ones_like(big), np.ones_like(big)
    for k in range(1, 30):
        t = -t * (mu - (2 * k - 1) ** 2) / (k * 8.0 * big)
        asym += t
    asym /= np.sqrt(2 * np.pi * big)
    return np.where(small, series, asym)


def _i0e(x):
    return _bessel_scaled(x, 0)


def _i1e(x):
    return np.sign(x) * _bessel_scaled(x, 1)


def _i0(x):
    return _i0e(x) * np.exp(np.abs(x))


def _i1(x):
    return _i1e(x) * np.exp(np.abs(x))


# -- declarations -------------------------------------------------------------------------------------
def _g(ctx):
    return ctx.out_grads[0]


def _mul(ctx, v):
    return [apply("multiply", _g(ctx), v)]


def _i1_over_x(x, i1):
    # i1(x)/x, 0.5 at x = 0 (its limit): the derivative term of i1 and i1e
    zero = apply("equal", x, apply("scale", x, scale=0.0))
    safe = apply("where", zero, apply("scale", x, scale=0.0, bias=1.0), x)
    return apply("where", zero, apply("scale", x, scale=0.0, bias=0.5), apply("divide", i1, safe))


def _i0e_grad(ctx):
    x, out = ctx.inputs[0], ctx.outputs[0]
    # Paddle takes sign(0) = +1 here: the gradient at 0 is -1
    pos = apply("where", apply("less_than", x, apply("scale", x, scale=0.0)), apply("scale", out, scale=-1.0), out)
    return _mul(ctx, apply("subtract", apply("i1e", x), pos))


def _i1_grad(ctx):
    x, out = ctx.inputs[0], ctx.outputs[0]
    return _mul(ctx, apply("subtract", apply("i0", x), _i1_over_x(x, out)))


def _i1e_grad(ctx):
    x, out = ctx.inputs[0], ctx.outputs[0]
    d = apply("subtract", apply("i0e", x), apply("add", apply("multiply", apply("sign", x), out), _i1_over_x(x, out)))
    return _mul(ctx, d)


def _erfinv_grad(ctx):
    out = ctx.outputs[0]
    return _mul(ctx, apply("scale", apply("exp", apply("square", out)), scale=_math.sqrt(_math.pi) / 2))


_UNARY = {  # op type: (kernel, grad rule)
    "erfinv": (_f64(_erfinv), _erfinv_grad),
    "lgamma": (_f64(_lgamma), lambda c: _mul(c, apply("digamma", c.inputs[0]))),
    "digamma": (_f64(_digamma), lambda c: _mul(c, apply("polygamma", c.inputs[0], n=1))),
    "i0": (_f64(_i0), lambda c: _mul(c, apply("i1", c.inputs[0]))),
    "i0e": (_f64(_i0e), _i0e_grad),
    "i1": (_f64(_i1), _i1_grad),
    "i1e": (_f64(_i1e), _i1e_grad),
}
for _name, (_kernel, _grad) in _UNARY.items():
    def_op(_name, ["X"], ["Out"], kernel=_kernel, infer=same_as, grad=_grad, no_onnx=_NO_ONNX,
           api=[_name] + (["gammaln"] if _name == "lgamma" else []),
           methods=[_name] + (["gammaln=lgamma"] if _name == "lgamma" else []), float16_in_float32=True)


def _polygamma_kernel(x, n=1):
    return _polygamma(np.asarray(x, np.float64), n).astype(x.dtype)


def_op("polygamma", ["X"], ["Out"], attrs={"n": 1}, kernel=_polygamma_kernel, infer=same_as,
       grad=lambda c: _mul(c, apply("polygamma", c.inputs[0], n=c.attrs["n"] + 1)), no_onnx=_NO_ONNX,
       api=["polygamma"], methods=["polygamma"])


def _gammainc_grad(sign):
    def grad(ctx):
        # d/dx P(a, x) = x^(a-1) e^(-x) / Gamma(a); Paddle gives a (the first argument) no gradient
        a, x = ctx.inputs
        log_d = apply("subtract", apply("subtract", apply("multiply", apply("scale", a, bias=-1.0), apply("log", x)), x),
                      apply("lgamma", a))
        return [None, reduce_as(apply("multiply", _g(ctx), apply("scale", apply("exp", log_d), scale=sign)), x)]
    return grad


def _infer_binary(x, y, **_):
    return Meta(broadcast_shape(x.shape, y.shape), x.dtype)


def_op("gammainc", ["X", "Y"], ["Out"], kernel=_gammainc, infer=_infer_binary, grad=_gammainc_grad(1.0),
       no_onnx=_NO_ONNX, api=["gammainc"], methods=["gammainc"])
def_op("gammaincc", ["X", "Y"], ["Out"], kernel=_gammaincc, infer=_infer_binary, grad=_gammainc_grad(-1.0),
       no_onnx=_NO_ONNX, api=["gammaincc"], methods=["gammaincc"])


# -- public --------------------------------------------------------------------------------------------
def _unary(type, doc):
    def fn(x: TensorLike, name: str | None = None) -> TensorLike:
        return apply(type, _floating(x))
    fn.__name__ = fn.__qualname__ = type
    fn.__doc__ = doc
    return fn


erfinv = _unary("erfinv", "The inverse of erf (``+-inf`` at ``+-1`` and beyond, as Paddle).")
lgamma = _unary("lgamma", "``log|Gamma(x)|`` (``inf`` at the poles 0, -1, ...).")
gammaln = lgamma
digamma = _unary("digamma", "``d/dx lgamma(x)`` (``-inf`` at 0, nan at the negative integers).")
i0 = _unary("i0", "The modified Bessel function of the first kind, order 0.")
i0e = _unary("i0e", "``i0(x) * exp(-|x|)``, finite for large |x|.")
i1 = _unary("i1", "The modified Bessel function of the first kind, order 1.")
i1e = _unary("i1e", "``i1(x) * exp(-|x|)``, finite for large |x|.")


def polygamma(x: TensorLike, n: int, name: str | None = None) -> TensorLike:
    """The ``n``-th derivative of digamma (``n = 0`` is digamma itself)."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
    return apply("polygamma", _floating(x), n=int(n))


def gammainc(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """The regularized lower incomplete gamma function ``P(x, y)`` (x the shape, y the bound)."""
    return apply("gammainc", *operands(_floating(x), _floating(y)))


def gammaincc(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """The regularized upper incomplete gamma function ``Q(x, y) = 1 - P(x, y)``."""
    return apply("gammaincc", *operands(_floating(x), _floating(y)))
