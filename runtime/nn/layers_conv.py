"""Convolution and pooling layers over 2 and 3 spatial dims (channels first or last)."""
import math

from . import functional as F
from .initializer import Normal
from .layer import Layer
from ..hints import IntOrPair, IntOrTriple
from .param_attr import ParamAttr


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def padding_pre_pad(what, padding_mode, padding, nd):
    """The ``F.pad`` list a convolution with ``padding_mode`` reflect/replicate/circular applies before
    convolving with no padding (None for 'zeros'): ``padding`` (an int, as Paddle requires) on each
    side of each of the ``nd`` spatial dims."""
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"{what}: padding_mode must be one of {list(_PADDING_MODES)}, got {padding_mode!r}")
    if padding_mode == "zeros":
        return None
    if isinstance(padding, bool) or not isinstance(padding, int):
        raise TypeError(f"{what}: with padding_mode={padding_mode!r} padding must be an int, got {padding!r}")
    return [padding] * (2 * nd)


class _ConvNd(Layer):
    """Convolution over ``_nd`` spatial dims; the filter is ``[out_channels, in_channels / groups, *kernel]``.

    Default filter init is Paddle's: Normal(0, sqrt(2 / (prod(kernel) * in_channels))).
    """

    _nd, _fn, _layout = 2, "conv2d", "NCHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        what = type(self).__name__
        self._pad_first = padding_pre_pad(what, padding_mode, padding, self._nd)
        self._padding_mode = padding_mode
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{what}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by groups ({groups})")
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = F._ntuple(kernel_size, self._nd, "kernel_size")
        self._stride, self._padding, self._dilation, self._groups = stride, padding, dilation, groups
        self._data_format = data_format or self._layout
        std = math.sqrt(2.0 / (math.prod(self._kernel_size) * self._in_channels))
        self.weight = self.create_parameter([out_channels, in_channels // groups] + self._kernel_size,
                                            attr=weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        padding = self._padding
        if self._pad_first is not None:  # reflect/replicate/circular: F.pad first, then no padding (Paddle's way)
            x, padding = F.pad(x, self._pad_first, mode=self._padding_mode, data_format=self._data_format), 0
        return getattr(F, self._fn)(x, self.weight, self.bias, stride=self._stride, padding=padding,
                                    dilation=self._dilation, groups=self._groups, data_format=self._data_format)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}")


class Conv2D(_ConvNd):
    """2-D convolution of NCHW (or NHWC) input; the filter is ``[out_channels, in_channels / groups, kh, kw]``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
                 padding: IntOrPair | str = 0, dilation: IntOrPair = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: ParamAttr | bool | None = None, bias_attr: ParamAttr | bool | None = None,
                 data_format: str = "NCHW", *, bias: bool = True) -> None:
        # Paddle 3's bias=False: no bias, as bias_attr=False
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr if bias else False, data_format)


class Conv3D(_ConvNd):
    """3-D convolution of NCDHW (or NDHWC) input; the filter is ``[out_channels, in_channels / groups, kd, kh, kw]``."""

    _nd, _fn, _layout = 3, "conv3d", "NCDHW"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTriple, stride: IntOrTriple = 1,
                 padding: IntOrTriple | str = 0, dilation: IntOrTriple = 1, groups: int = 1,
                 padding_mode: str = "zeros", weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, data_format: str = "NCDHW", *, bias: bool = True) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr if bias else False, data_format)  # bias: as Conv2D's


class MaxPool2D(Layer):
    """2-D max pooling of NCHW input (see ``F.max_pool2d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair | str = 0,
                 return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.return_mask, self.data_format = ceil_mode, return_mask, data_format

    def forward(self, x):
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(Layer):
    """2-D average pooling of NCHW input (see ``F.avg_pool2d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair | str = 0,
                 ceil_mode: bool = False, exclusive: bool = True, divisor_override: int | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format = data_format

    def forward(self, x):
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                            self.divisor, self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool3D(Layer):
    """3-D max pooling of NCDHW (or NDHWC) input (see ``F.max_pool3d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: IntOrTriple, stride: IntOrTriple | None = None, padding: IntOrTriple | str = 0,
                 return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCDHW",
                 name: str | None = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.return_mask, self.data_format = ceil_mode, return_mask, data_format

    def forward(self, x):
        return F.max_pool3d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool3D(Layer):
    """3-D average pooling of NCDHW (or NDHWC) input (see ``F.avg_pool3d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: IntOrTriple, stride: IntOrTriple | None = None, padding: IntOrTriple | str = 0,
                 ceil_mode: bool = False, exclusive: bool = True, divisor_override: int | None = None,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format = data_format

    def forward(self, x):
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                            self.divisor, self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"
