"""Paddle 3's alternative names of existing functions (``div``, ``mul``, ``sub``, ``gt``... ``clamp``,
``cat``, ``negative``, ``true_divide``, ``msort``, ``argwhere``, ``ger``, ``asinh``...), each a
composite calling the function it names, so a model written with either spelling builds the same ops.
"""
import runtime as _rt

from ..hints import TensorLike
from ..registry import composite


@composite("div", api=["div"], methods=["div"])
def div(x: TensorLike, y: TensorLike, name: str | None = None, *, rounding_mode: str | None = None) -> TensorLike:
    """``x / y``; ``rounding_mode="trunc"`` rounds toward zero, ``"floor"`` down."""
    if rounding_mode is None:
        return _rt.divide(x, y)
    if rounding_mode == "floor":
        return _rt.floor_divide(x, y)
    if rounding_mode == "trunc":
        q = _rt.divide(x, y)
        return _rt.trunc(q) if str(q.dtype).startswith("float") else q
    raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")


@composite("true_divide", api=["true_divide"], methods=["true_divide"])
def true_divide(input: TensorLike, other: TensorLike) -> TensorLike:  # noqa: A002
    """``input / other`` (float for int inputs, as ``divide``)."""
    return _rt.divide(input, other)


@composite("mul", api=["mul"], methods=["mul"])
def mul(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """``x * y`` (``multiply``)."""
    return _rt.multiply(x, y)


@composite("sub", api=["sub"], methods=["sub"])
def sub(x: TensorLike, y: TensorLike, name: str | None = None, *, alpha: float = 1) -> TensorLike:
    """``x - alpha * y``."""
    return _rt.subtract(x, y if alpha == 1 else _rt.scale(y, scale=float(alpha)))


def _compare(public, target):
    def fn(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
        return getattr(_rt, target)(x, y)
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"``{target}(x, y)``."
    return composite(public, api=[public], methods=[public])(fn)


gt = _compare("gt", "greater_than")
greater = _compare("greater", "greater_than")
ge = _compare("ge", "greater_equal")
lt = _compare("lt", "less_than")
less = _compare("less", "less_than")
le = _compare("le", "less_equal")
eq = _compare("eq", "equal")
ne = _compare("ne", "not_equal")


@composite("clamp", api=["clamp"], methods=["clamp"])
def clamp(x: TensorLike, min: float | None = None, max: float | None = None,  # noqa: A002
          name: str | None = None) -> TensorLike:
    """``clip(x, min, max)``."""
    return _rt.clip(x, min, max)


@composite("negative", api=["negative"], methods=["negative"])
def negative(x: TensorLike, name: str | None = None) -> TensorLike:
    """``-x``."""
    return _rt.neg(x)


@composite("positive", api=["positive"])
def positive(x: TensorLike, name: str | None = None) -> TensorLike:
    """``x`` itself (a bool tensor is refused, as in Paddle)."""
    if x.dtype == "bool":
        raise TypeError("positive does not take a bool tensor")
    return x


@composite("cat", api=["cat", "concatenate"])
def cat(x: list[TensorLike], axis: int = 0, name: str | None = None) -> TensorLike:
    """``concat(x, axis)``."""
    return _rt.concat(x, axis=axis)


concatenate = cat


@composite("msort", api=["msort"], methods=["msort"])
def msort(input: TensorLike) -> TensorLike:  # noqa: A002
    """``input`` sorted along dim 0."""
    return _rt.sort(input, axis=0)


@composite("matrix_transpose", api=["matrix_transpose"], methods=["matrix_transpose"])
def matrix_transpose(x: TensorLike, name: str | None = None) -> TensorLike:
    """``x`` with its last two dims swapped."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dims, got shape {list(x.shape)}")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _rt.transpose(x, perm)


@composite("argwhere", api=["argwhere"], methods=["argwhere"])
def argwhere(input: TensorLike) -> TensorLike:  # noqa: A002
    """The indices of the nonzero elements, one row each (``nonzero``)."""
    return _rt.nonzero(input)


@composite("ger", api=["ger"])
def ger(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """The outer product of two 1-D tensors (``outer``)."""
    return _rt.outer(x, y)


@composite("bitwise_invert", api=["bitwise_invert"], methods=["bitwise_invert"])
def bitwise_invert(x: TensorLike, out: TensorLike | None = None, name: str | None = None) -> TensorLike:
    """``~x`` of an int or bool tensor (``bitwise_not``); written into ``out`` if given."""
    return _rt.bitwise_not(x, out)


@composite("crop", api=["crop"], methods=["crop"])
def crop(x: TensorLike, shape: list[int] | None = None, offsets: list[int] | None = None,
         name: str | None = None) -> TensorLike:
    """The ``shape`` box of ``x`` at ``offsets`` (zeros by default; ``-1`` in shape: to the end)."""
    shape = list(x.shape) if shape is None else list(shape)
    offsets = [0] * x.ndim if offsets is None else list(offsets)
    # -1: to the end of the dim, read when the Program runs where it is known only then (its -1
    # placeholder as an end would drop the last entry)
    ends = [(x.shape[i] if x.shape[i] >= 0 else _rt.shape(x)[i]) if s == -1 else o + s
            for i, (s, o) in enumerate(zip(shape, offsets))]
    return _rt.slice(x, list(range(x.ndim)), offsets, ends)
