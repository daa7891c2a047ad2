"""Paddle 2.x functions that answer from a tensor's dtype, shape or value without an op:
``is_floating_point``, ``is_integer``, ``tolist``, ``broadcast_shape`` (``rt.*`` names; the first three
are also Tensor methods)."""
from .hints import TensorLike
from .ops.common import broadcast_shape as _broadcast


def is_floating_point(x: TensorLike) -> bool:
    """Whether ``x`` has a floating-point dtype (a Python bool)."""
    return x.is_floating_point()


def is_integer(x: TensorLike) -> bool:
    """Whether ``x`` has an integer dtype, bool excluded (a Python bool)."""
    return x.is_integer()


def tolist(x: TensorLike) -> list | int | float | bool:
    """``x``'s value as nested Python lists (eager tensors only: a static Variable has no value)."""
    return x.tolist()


def broadcast_shape(x_shape: list[int] | tuple[int, ...], y_shape: list[int] | tuple[int, ...]) -> list[int]:
    """The shape two tensors of shapes ``x_shape`` and ``y_shape`` broadcast to, as a list."""
    return list(_broadcast(x_shape, y_shape))
