"""Paddle's padding, shuffling and small layers that call one function each: ZeroPad2D, Pad1D,
Pad3D, PixelUnshuffle, ChannelShuffle, Maxout, Unflatten and Softmax2D."""
from collections.abc import Sequence

from ..hints import TensorLike
from ..ops.linalg import unflatten
from . import functional as F
from .layer import Layer
from .layers_vision import _Wrap


def _padding(padding, n, what):
    padding = [padding] * n if isinstance(padding, int) else list(padding)
    if len(padding) != n:
        raise ValueError(f"{what}: padding must be an int or {n} ints, got {padding}")
    return padding


class ZeroPad2D(_Wrap):
    """``F.zeropad2d``: zeros around the spatial dims; ``padding`` an int or [left, right, top, bottom]."""

    _fn = "pad"

    def __init__(self, padding: int | Sequence[int], data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(pad=_padding(padding, 4, "ZeroPad2D"), mode="constant", value=0.0, data_format=data_format)


class Pad1D(_Wrap):
    """``F.pad`` of an NCL input; ``padding`` is an int or [left, right]."""

    _fn = "pad"

    def __init__(self, padding: int | Sequence[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCL", name: str | None = None) -> None:
        super().__init__(pad=_padding(padding, 2, "Pad1D"), mode=mode, value=value, data_format=data_format)


class Pad3D(_Wrap):
    """``F.pad`` of an NCDHW input; ``padding`` is an int or [left, right, top, bottom, front, back]."""

    _fn = "pad"

    def __init__(self, padding: int | Sequence[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__(pad=_padding(padding, 6, "Pad3D"), mode=mode, value=value, data_format=data_format)


class PixelUnshuffle(_Wrap):
    """``F.pixel_unshuffle``: [N, C, H * r, W * r] -> [N, C * r * r, H, W]."""

    _fn = "pixel_unshuffle"

    def __init__(self, downscale_factor: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(downscale_factor=downscale_factor, data_format=data_format)


class ChannelShuffle(_Wrap):
    """``F.channel_shuffle``."""

    _fn = "channel_shuffle"

    def __init__(self, groups: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(groups=groups, data_format=data_format)


class Maxout(_Wrap):
    """``F.maxout``: the max of each run of ``groups`` channels."""

    _fn = "maxout"

    def __init__(self, groups: int, axis: int = 1, name: str | None = None) -> None:
        super().__init__(groups=groups, axis=axis)


class Unflatten(Layer):
    """``rt.unflatten(x, axis, shape)``: dim ``axis`` split into ``shape``."""

    def __init__(self, axis: int, shape: Sequence[int], name: str | None = None) -> None:
        super().__init__()
        self.axis, self.shape = axis, shape

    def forward(self, input: TensorLike):  # noqa: A002
        return unflatten(input, self.axis, self.shape)


class Softmax2D(Layer):
    """Softmax over the channels (axis -3) of a [C, H, W] or [N, C, H, W] input."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D expects a 3-D or 4-D input, got shape {x.shape}")
        return F.softmax(x, axis=-3)
