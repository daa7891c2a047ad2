"""Paddle 2.x math functions made of registered ops (gradients, static form and ONNX export are those of
the ops they use): lerp, logaddexp, heaviside, fmax, fmin, sgn, rad2deg, isclose, allclose, equal_all,
nan_to_num, nansum, nanmean, count_nonzero, diff, logspace, bucketize, is_empty, rank (median, quantile and
kthvalue: order_stats.py)."""
import math as _math

import numpy as np

from ..dispatch import apply
from ..dtypes import DEFAULT_FLOAT, convert_dtype
from ..hints import Axis, DTypeLike, TensorLike
from ..registry import composite
from .common import as_tensor, cast, constant
from .creation import full_like, linspace, zeros_like
from .elementwise import _floating, exp, maximum, minimum
from .elementwise import abs as abs_
from .indexing import getitem
from .logic import (equal, greater_equal, greater_than, isfinite, isinf, isnan, less_equal, less_than, logical_and, logical_not,
                    logical_or, not_equal, where)
from .math import add, divide, multiply, operands, scale, subtract
from .reduce import all as all_
from .reduce import sum as sum_
from .shape import concat
from .composites_extra import log1p


@composite("lerp", api=["lerp"], methods=["lerp"], float16_in_float32=True)
def lerp(x: TensorLike, y: TensorLike, weight: float | TensorLike, name: str | None = None) -> TensorLike:
    """``x + weight * (y - x)``."""
    return add(x, multiply(weight, subtract(y, x)))


@composite("logaddexp", api=["logaddexp"], methods=["logaddexp"], float16_in_float32=True)
def logaddexp(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """``log(exp(x) + exp(y))`` without overflow: ``max(x, y) + log1p(exp(-|x - y|))``."""
    x, y = operands(_floating(x), _floating(y))
    return add(maximum(x, y), log1p(exp(scale(abs_(subtract(x, y)), -1.0))))


@composite("heaviside", api=["heaviside"], methods=["heaviside"])
def heaviside(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """Step function: 0 where ``x < 0``, ``y`` where ``x == 0``, 1 where ``x > 0``."""
    x, y = operands(x, y)
    return where(less_than(x, zeros_like(x)), zeros_like(x),
                 where(greater_than(x, zeros_like(x)), full_like(x, 1), y))


def _nan_ignoring(pick, keeps_x):
    """x where ``keeps_x(x, y)`` (x >= y for fmax) or y is nan, else y: a nan operand is ignored, and a
    tie takes x, whose gradient it is (Paddle's fmax/fmin give a tie's gradient to x alone)."""
    def fn(x, y, name=None):
        x, y = operands(x, y)
        if x.dtype not in ("float16", "float32", "float64"):
            return pick(x, y)
        return where(logical_or(keeps_x(x, y), isnan(y)), x, y)
    return fn


@composite("fmax", api=["fmax"], methods=["fmax"])
def fmax(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """Elementwise maximum that ignores a nan operand (nan only where both are)."""
    return _nan_ignoring(maximum, greater_equal)(x, y)


@composite("fmin", api=["fmin"], methods=["fmin"])
def fmin(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """Elementwise minimum that ignores a nan operand (nan only where both are)."""
    return _nan_ignoring(minimum, less_equal)(x, y)


@composite("sgn", api=["sgn"], methods=["sgn"])
def sgn(x: TensorLike, name: str | None = None) -> TensorLike:
    """The sign of a real tensor (-1, 0 or 1); complex tensors are not supported."""
    return apply("sign", x)


@composite("rad2deg", api=["rad2deg"], methods=["rad2deg"], float16_in_float32=True)
def rad2deg(x: TensorLike, name: str | None = None) -> TensorLike:
    """Radians to degrees (int inputs give float32)."""
    return scale(_floating(x), 180.0 / _math.pi)


@composite("isclose", api=["isclose"], methods=["isclose"])
def isclose(x: TensorLike, y: TensorLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
            name: str | None = None) -> TensorLike:
    """``|x - y| <= atol + rtol * |y|`` elementwise (equal infinities are close; nans only with ``equal_nan``)."""
    x, y = operands(x, y)
    finite = logical_and(isfinite(x), isfinite(y))
    # inf/nan zeroed before the arithmetic (inf - inf would warn); equal() decides infinities
    xf, yf = where(finite, x, zeros_like(x)), where(finite, y, zeros_like(y))
    close = less_equal(abs_(subtract(xf, yf)), add(scale(abs_(yf), float(rtol)), float(atol)))
    close = logical_or(equal(x, y), logical_and(close, finite))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(x), isnan(y)))
    return close


@composite("allclose", api=["allclose"], methods=["allclose"])
def allclose(x: TensorLike, y: TensorLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
             name: str | None = None) -> TensorLike:
    """Whether every element pair is ``isclose``: a 0-d bool tensor."""
    return all_(isclose(x, y, rtol, atol, equal_nan))


@composite("equal_all", api=["equal_all"], methods=["equal_all"])
def equal_all(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """Whether ``x`` and ``y`` have the same shape and elements: a 0-d bool tensor."""
    if len(x.shape) != len(y.shape) or any(a != b and a >= 0 and b >= 0 for a, b in zip(x.shape, y.shape)):
        return constant(False, "bool")
    if min([*x.shape, *y.shape], default=0) >= 0:
        return all_(equal(x, y))
    # dims known only when the Program runs: [-1] and [-1] may be [1] and [3] (equal would broadcast
    # them) or [2] and [3] (equal would fail); so the shapes, then the common leading elements
    n = apply("minimum", apply("numel", x), apply("numel", y))
    head = [getitem(apply("reshape", t, shape=[-1]), slice(0, n)) for t in (x, y)]
    return logical_and(all_(equal(apply("shape", x), apply("shape", y))), all_(equal(*head)))


@composite("nan_to_num", api=["nan_to_num"], methods=["nan_to_num"])
def nan_to_num(x: TensorLike, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None,
               name: str | None = None) -> TensorLike:
    """``x`` with nan, +inf and -inf replaced (the infinities by the dtype's largest/lowest by default)."""
    info = np.finfo(convert_dtype(x.dtype).np)
    hi = float(info.max) if posinf is None else float(posinf)
    lo = float(info.min) if neginf is None else float(neginf)
    pos = logical_and(isinf(x), greater_than(x, zeros_like(x)))
    neg = logical_and(isinf(x), less_than(x, zeros_like(x)))
    return where(isnan(x), full_like(x, nan), where(pos, full_like(x, hi), where(neg, full_like(x, lo), x)))


@composite("nansum", api=["nansum"], methods=["nansum"])
def nansum(x: TensorLike, axis: Axis | None = None, dtype: DTypeLike | None = None, keepdim: bool = False,
           name: str | None = None) -> TensorLike:
    """Sum over ``axis`` counting nans as zero."""
    if x.dtype in ("float16", "float32", "float64"):
        x = where(isnan(x), zeros_like(x), x)
    return sum_(x, axis=axis, dtype=dtype, keepdim=keepdim)


@composite("nanmean", api=["nanmean"], methods=["nanmean"], float16_in_float32=True)
def nanmean(x: TensorLike, axis: Axis | None = None, keepdim: bool = False, name: str | None = None) -> TensorLike:
    """Mean over ``axis`` of the non-nan elements."""
    x = _floating(x)
    count = sum_(cast(logical_not(isnan(x)), x.dtype), axis=axis, keepdim=keepdim)
    return divide(nansum(x, axis=axis, keepdim=keepdim), count)


@composite("count_nonzero", api=["count_nonzero"], methods=["count_nonzero"])
def count_nonzero(x: TensorLike, axis: Axis | None = None, keepdim: bool = False,
                  name: str | None = None) -> TensorLike:
    """The number of nonzero elements over ``axis``, as int64."""
    return sum_(cast(not_equal(x, zeros_like(x)), "int64"), axis=axis, keepdim=keepdim)


def _along(x, axis, start, stop):
    return getitem(x, tuple(slice(start, stop) if i == axis else slice(None) for i in range(x.ndim)))


@composite("diff", api=["diff"], methods=["diff"])
def diff(x: TensorLike, n: int = 1, axis: int = -1, prepend: TensorLike | None = None,
         append: TensorLike | None = None, name: str | None = None) -> TensorLike:
    """The ``n``-th forward difference along ``axis`` (after concatenating ``prepend``/``append``);
    bool tensors give ``x[i+1] != x[i]``."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"diff: axis {axis} is out of range for a tensor of rank {x.ndim} (x needs rank >= 1)")
    axis %= x.ndim
    parts = [p for p in (prepend, x, append) if p is not None]
    x = concat(parts, axis=axis) if len(parts) > 1 else x
    for _ in range(n):
        hi, lo = _along(x, axis, 1, None), _along(x, axis, None, -1)
        x = not_equal(hi, lo) if x.dtype == "bool" else subtract(hi, lo)
    return x


@composite("logspace", api=["logspace"])
def logspace(start: float, stop: float, num: int, base: float = 10.0, dtype: DTypeLike | None = None,
             name: str | None = None) -> TensorLike:
    """``base ** linspace(start, stop, num)`` (of the default float dtype unless ``dtype``)."""
    dtype = str(DEFAULT_FLOAT[0] if dtype is None else convert_dtype(dtype))
    exps = linspace(start, stop, num, dtype="float64" if dtype.startswith("int") else dtype)
    out = apply("elementwise_pow", as_tensor(float(base), exps.dtype), exps)
    return cast(out, dtype)


@composite("bucketize", api=["bucketize"], methods=["bucketize"])
def bucketize(x: TensorLike, sorted_sequence: TensorLike, out_int32: bool = False, right: bool = False,
              name: str | None = None) -> TensorLike:
    """The bucket of each element of ``x`` in the 1-D ``sorted_sequence`` (``searchsorted`` with x as values)."""
    if sorted_sequence.ndim != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got shape {list(sorted_sequence.shape)}")
    return apply("searchsorted", sorted_sequence, x, right=bool(right), dtype="int32" if out_int32 else "int64")


@composite("is_empty", api=["is_empty"], methods=["is_empty"])
def is_empty(x: TensorLike, name: str | None = None) -> TensorLike:
    """Whether ``x`` has no elements: a 0-d bool tensor."""
    return equal(apply("numel", x), constant(0, "int64"))


@composite("rank", api=["rank"], methods=["rank"])
def rank(input: TensorLike) -> TensorLike:  # noqa: A002
    """The number of dims of ``input``, as a 0-d int32 tensor."""
    return constant(input.ndim, "int32")

