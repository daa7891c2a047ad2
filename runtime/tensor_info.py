"""Paddle 2.x functions that answer from a tensor's dtype, shape or value without an op:
``is_floating_point``, ``is_integer``, ``tolist``, ``broadcast_shape`` (``rt.*`` names; the first three
are also Tensor methods), and the dtype limits ``finfo`` / ``iinfo``."""
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


class finfo:  # noqa: N801  (Paddle's name)
    """``paddle.finfo(dtype)``: the limits of a float dtype as Python floats (``finfo('float32').min``,
    the large negative fill of attention masks), from numpy's."""

    def __init__(self, dtype):
        import numpy as np  # noqa: PLC0415
        from .dtypes import convert_dtype  # noqa: PLC0415
        d = convert_dtype(dtype)
        if np.dtype(d.np).kind != "f":
            raise TypeError(f"finfo takes a floating-point dtype, got {d}; use iinfo for integers")
        info = np.finfo(d.np)
        self.dtype, self.bits = str(d), int(info.bits)
        self.min, self.max, self.eps = float(info.min), float(info.max), float(info.eps)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # Paddle's 1e-06, not float32(1e-06)

    def __repr__(self):
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, resolution={self.resolution:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (Paddle's name)
    """``paddle.iinfo(dtype)``: the limits of an integer dtype as Python ints."""

    def __init__(self, dtype):
        import numpy as np  # noqa: PLC0415
        from .dtypes import convert_dtype  # noqa: PLC0415
        d = convert_dtype(dtype)
        if np.dtype(d.np).kind not in "iu":
            raise TypeError(f"iinfo takes an integer dtype, got {d}; use finfo for floats")
        info = np.iinfo(d.np)
        self.dtype, self.bits, self.min, self.max = str(d), int(info.bits), int(info.min), int(info.max)

    def __repr__(self):
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"
