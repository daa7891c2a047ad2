"""Paddle math functions made of registered ops (their gradients and static forms are those ops'):
logit, hypot, ldexp, sinc, frac, isneginf/isposinf/isreal, stanh, deg2rad, trapezoid,
cumulative_trapezoid, vander, renorm, multiplex, nanmedian, nanquantile, reduce_as.

The functions are looked up on ``runtime`` when called (they are declared in several op modules).
"""
import math as _math

import runtime as _rt

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .shape import dims
from .elementwise import _floating


@composite("logit", api=["logit"], methods=["logit"], float16_in_float32=True)
def logit(x: TensorLike, eps: float | None = None, name: str | None = None) -> TensorLike:
    """``log(x / (1 - x))``, x first clipped to ``[eps, 1 - eps]`` when ``eps`` is given (no gradient
    outside it)."""
    x = _floating(x)
    if eps is not None:
        x = _rt.clip(x, float(eps), 1.0 - float(eps))
    return _rt.log(_rt.divide(x, _rt.scale(x, scale=-1.0, bias=1.0)))


@composite("hypot", api=["hypot"], methods=["hypot"], float16_in_float32=True)
def hypot(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """``sqrt(x**2 + y**2)`` elementwise."""
    return _rt.sqrt(_rt.add(_rt.square(_floating(x)), _rt.square(_floating(y))))


@composite("ldexp", api=["ldexp"], methods=["ldexp"])
def ldexp(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """``x * 2 ** y`` (ints give float32)."""
    x = _floating(x)
    yf = _rt.cast(y, x.dtype)
    return _rt.multiply(x, _rt.pow(_rt.full_like(yf, 2.0), yf))


@composite("sinc", api=["sinc"], methods=["sinc"], float16_in_float32=True)
def sinc(x: TensorLike, name: str | None = None) -> TensorLike:
    """``sin(pi x) / (pi x)``, 1 at 0 (where the gradient is 0)."""
    x = _floating(x)
    zero = _rt.equal(x, _rt.zeros_like(x))
    safe = _rt.scale(_rt.where(zero, _rt.ones_like(x), x), scale=_math.pi)
    return _rt.where(zero, _rt.ones_like(x), _rt.divide(_rt.sin(safe), safe))


@composite("frac", api=["frac"], methods=["frac"])
def frac(x: TensorLike, name: str | None = None) -> TensorLike:
    """The fractional part ``x - trunc(x)`` (with x's sign)."""
    return _rt.subtract(x, _rt.trunc(x))


def _float_or_false(x, neg):
    if x.dtype not in ("float16", "float32", "float64"):
        return _rt.full_like(x, False, dtype="bool")
    side = _rt.less_than(x, _rt.zeros_like(x)) if neg else _rt.greater_than(x, _rt.zeros_like(x))
    return _rt.logical_and(_rt.isinf(x), side)


@composite("isneginf", api=["isneginf"], methods=["isneginf"])
def isneginf(x: TensorLike, name: str | None = None) -> TensorLike:
    """Whether each element is ``-inf``."""
    return _float_or_false(x, True)


@composite("isposinf", api=["isposinf"], methods=["isposinf"])
def isposinf(x: TensorLike, name: str | None = None) -> TensorLike:
    """Whether each element is ``+inf``."""
    return _float_or_false(x, False)


@composite("isreal", api=["isreal"], methods=["isreal"])
def isreal(x: TensorLike, name: str | None = None) -> TensorLike:
    """Whether each element is real: all True (runtime has no complex dtypes)."""
    return _rt.full_like(x, True, dtype="bool")


@composite("stanh", api=["stanh"], methods=["stanh"], float16_in_float32=True)
def stanh(x: TensorLike, scale_a: float = 0.67, scale_b: float = 1.7159, name: str | None = None) -> TensorLike:
    """``scale_b * tanh(scale_a * x)``."""
    from .nn_activation import number  # noqa: PLC0415  (float(), or a run-time read of a one-element tensor)
    return _rt.scale(_rt.tanh(_rt.scale(_floating(x), scale=number(scale_a))), scale=number(scale_b))


@composite("deg2rad", api=["deg2rad"], methods=["deg2rad"], float16_in_float32=True)
def deg2rad(x: TensorLike, name: str | None = None) -> TensorLike:
    """Degrees to radians (ints give float32)."""
    return _rt.scale(_floating(x), scale=_math.pi / 180.0)


# -- integration, Vandermonde, renorm, multiplex --------------------------------------------------------
def _pieces(t, axis):
    n = t.shape[axis]
    if n < 0:
        raise ValueError(f"trapezoid: the integration dim {axis} must have a known size, got shape {list(t.shape)}")
    return _rt.slice(t, [axis], [1], [n]), _rt.slice(t, [axis], [0], [n - 1])


def _trapezoid_terms(y, x, dx, axis, what):
    if x is not None and dx is not None:
        raise ValueError(f"{what}: give x or dx, not both")
    y = _floating(y)
    axis = axis % y.ndim
    hi, lo = _pieces(y, axis)
    mean = _rt.scale(_rt.add(hi, lo), scale=0.5)
    if x is None:
        return _rt.scale(mean, scale=1.0 if dx is None else float(dx)), axis
    x = _rt.cast(x, y.dtype)
    if x.ndim == 1:  # spacing along axis, broadcast over the other dims
        x = _rt.reshape(x, [-1 if i == axis else 1 for i in range(y.ndim)])
        xa = axis
    else:
        xa = axis
    xh, xl = _pieces(x, xa)
    return _rt.multiply(mean, _rt.subtract(xh, xl)), axis


@composite("trapezoid", api=["trapezoid"], methods=["trapezoid"], float16_in_float32=True)
def trapezoid(y: TensorLike, x: TensorLike | None = None, dx: float | None = None, axis: int = -1,
              name: str | None = None) -> TensorLike:
    """The trapezoidal-rule integral of ``y`` along ``axis`` (sample points ``x``, or spacing ``dx``, default 1)."""
    terms, axis = _trapezoid_terms(y, x, dx, axis, "trapezoid")
    return _rt.sum(terms, axis=axis)


@composite("cumulative_trapezoid", api=["cumulative_trapezoid"], methods=["cumulative_trapezoid"],
           float16_in_float32=True)
def cumulative_trapezoid(y: TensorLike, x: TensorLike | None = None, dx: float | None = None, axis: int = -1,
                         name: str | None = None) -> TensorLike:
    """The running trapezoidal-rule integral along ``axis`` (one element shorter there)."""
    terms, axis = _trapezoid_terms(y, x, dx, axis, "cumulative_trapezoid")
    return _rt.cumsum(terms, axis=axis)


@composite("vander", api=["vander"], methods=["vander"])
def vander(x: TensorLike, n: int | None = None, increasing: bool = False, name: str | None = None) -> TensorLike:
    """The Vandermonde matrix of the 1-D ``x``: columns ``x ** (n-1) ... x ** 0`` (increasing powers
    when ``increasing``); built by products, so the gradient is finite at 0."""
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {list(x.shape)}")
    if n is None and x.shape[0] < 0:
        raise ValueError("vander: give n when x's length is only known at run time")
    n = x.shape[0] if n is None else int(n)
    if n < 0:
        raise ValueError(f"vander: n must be non-negative, got {n}")
    cols, p = [], _rt.ones_like(x)
    for _ in range(n):
        cols.append(p)
        p = _rt.multiply(p, x)
    if not increasing:
        cols = cols[::-1]
    if not cols:
        return _rt.reshape(_rt.slice(_rt.unsqueeze(x, 1), [1], [0], [0]), [x.shape[0], 0])
    return _rt.stack(cols, axis=1)


@composite("renorm", api=["renorm"], methods=["renorm"], float16_in_float32=True)
def renorm(x: TensorLike, p: float, axis: int, max_norm: float, name: str | None = None) -> TensorLike:
    """Each slice along ``axis`` whose p-norm exceeds ``max_norm`` scaled down to ``max_norm``
    (by ``max_norm / (norm + 1e-7)``, as Paddle)."""
    axis = axis % x.ndim
    others = [i for i in range(x.ndim) if i != axis]
    norm = _rt.pow(_rt.sum(_rt.pow(_rt.abs(x), float(p)), axis=others, keepdim=True), 1.0 / float(p))
    factor = _rt.where(_rt.greater_than(norm, _rt.full_like(norm, float(max_norm))),
                       _rt.divide(_rt.full_like(norm, float(max_norm)), _rt.scale(norm, bias=1e-7)),
                       _rt.ones_like(norm))
    return _rt.multiply(x, factor)


@composite("multiplex", api=["multiplex"], methods=["multiplex"])
def multiplex(inputs: list[TensorLike], index: TensorLike, name: str | None = None) -> TensorLike:
    """Row ``i`` of ``inputs[index[i]]`` for every row ``i`` (``index``: int, shape ``[n, 1]``)."""
    if not inputs:
        raise ValueError("multiplex: inputs is empty")
    stacked = _rt.stack(list(inputs), axis=0)
    rest = dims(inputs[0])[1:]
    idx = _rt.reshape(_rt.cast(index, "int64"), [1, -1] + [1] * len(rest))
    idx = _rt.expand(idx, [1, -1] + rest)  # -1: the index's own rows
    return _rt.squeeze(_rt.take_along_axis(stacked, idx, axis=0), axis=[0])


@composite("reduce_as_api", api=["reduce_as"], methods=["reduce_as"])
def reduce_as(x: TensorLike, target: TensorLike, name: str | None = None) -> TensorLike:
    """``x`` summed down to ``target``'s shape (undoing a broadcast)."""
    return apply("reduce_as", x, target)


# -- nan-ignoring median and quantile --------------------------------------------------------------------
def _nan_sorted(x, axis):
    """x sorted along ``axis`` (nans last), the axis, and the count of non-nan values (keepdim, int64)."""
    x = _floating(x)
    if axis is None:
        x, axis = _rt.flatten(x), 0
    elif not isinstance(axis, int):
        raise ValueError(f"an int axis or None is supported, got {axis!r}")
    axis = axis % max(x.ndim, 1)
    count = _rt.sum(_rt.cast(_rt.logical_not(_rt.isnan(x)), "int64"), axis=axis, keepdim=True)
    return _rt.sort(x, axis=axis), axis, count


def _nan_sorted_indices(x, axis):
    """The indices ``_nan_sorted`` sorts x's values by (the same stable order)."""
    return _rt.argsort(_floating(x) if axis is not None else _rt.flatten(_floating(x)), axis=axis or 0)


def _at(values, pos, axis):
    return _rt.take_along_axis(values, _rt.cast(pos, "int64"), axis=axis)


def _finish(out, axis, keepdim, flat, ndim=0):
    if keepdim:  # over all dims: each kept as 1, as Paddle
        return _rt.reshape(out, [1] * ndim) if flat else out
    return _rt.reshape(out, []) if flat else _rt.squeeze(out, axis=[axis])


@composite("nanmedian", api=["nanmedian"], methods=["nanmedian"])
def nanmedian(x: TensorLike, axis: int | None = None, keepdim: bool = False, mode: str = "avg",
              name: str | None = None) -> TensorLike:
    """The median of the non-nan values over ``axis`` (nan where all are nan); ``mode="min"`` takes
    the lower middle value of an even count and, with an ``axis``, also returns its index (-1 where
    all are nan), as Paddle."""
    if mode not in ("avg", "min"):
        raise ValueError(f"nanmedian: mode must be 'avg' or 'min', got {mode!r}")
    values, ax, count = _nan_sorted(x, axis)
    lo_pos = _rt.maximum(_rt.floor_divide(_rt.subtract(count, _rt.ones_like(count)), _rt.full_like(count, 2)),
                         _rt.zeros_like(count))
    out = _at(values, lo_pos, ax)
    if mode == "avg":
        hi = _at(values, _rt.floor_divide(count, _rt.full_like(count, 2)), ax)
        hi = _rt.where(_rt.equal(count, _rt.zeros_like(count)), out, hi)
        out = _rt.scale(_rt.add(out, hi), scale=0.5)
    out = _finish(out, ax, keepdim, axis is None, x.ndim)
    if mode == "avg" or axis is None:
        return out
    index = _at(_nan_sorted_indices(x, ax), lo_pos, ax)
    index = _rt.where(_rt.equal(count, _rt.zeros_like(count)), _rt.full_like(index, -1), index)
    return out, _finish(index, ax, keepdim, False)


@composite("nanquantile", api=["nanquantile"], methods=["nanquantile"])
def nanquantile(x: TensorLike, q: float | list[float], axis: int | None = None, keepdim: bool = False,
                interpolation: str = "linear", name: str | None = None) -> TensorLike:
    """The ``q``-th quantile(s) of the non-nan values over ``axis`` (a list ``q`` of two or
    more adds a leading dim)."""
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"nanquantile: unknown interpolation {interpolation!r}")
    qs = [q] if isinstance(q, (int, float)) else list(q)
    if not qs:
        raise ValueError("nanquantile: q must not be empty")
    values, ax, count = _nan_sorted(x, axis)
    last = _rt.cast(_rt.maximum(_rt.subtract(count, _rt.ones_like(count)), _rt.zeros_like(count)), values.dtype)
    outs = []
    for p in qs:
        if not 0 <= p <= 1:
            raise ValueError(f"nanquantile: q must be in [0, 1], got {p}")
        pos = _rt.scale(last, scale=float(p))
        i, j = _rt.floor(pos), _rt.ceil(pos)
        lo, hi = _at(values, i, ax), _at(values, j, ax)
        if interpolation == "lower":
            r = lo
        elif interpolation == "higher":
            r = hi
        elif interpolation == "nearest":
            r = _at(values, _rt.round(pos), ax)
        elif interpolation == "midpoint":
            r = _rt.scale(_rt.add(lo, hi), scale=0.5)
        else:
            r = _rt.add(lo, _rt.multiply(_rt.subtract(pos, i), _rt.subtract(hi, lo)))
        outs.append(_finish(r, ax, keepdim, axis is None, x.ndim))
    # a one-element list of q gives no leading dim either, as Paddle
    return outs[0] if len(outs) == 1 else _rt.stack(outs, axis=0)


@composite("multigammaln", api=["multigammaln"], methods=["multigammaln"])
def multigammaln(x: TensorLike, p: int, name: str | None = None) -> TensorLike:
    """The log of the multivariate gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_j lgamma(x - j / 2)``."""
    if p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p}")
    x = _floating(x)
    out = _rt.lgamma(x)
    for j in range(1, int(p)):
        out = _rt.add(out, _rt.lgamma(_rt.scale(x, bias=-j / 2.0)))
    return _rt.scale(out, bias=p * (p - 1) / 4.0 * _math.log(_math.pi))
