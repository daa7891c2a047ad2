"""Convolution and pooling layers (NCHW)."""
import math

from . import functional as F
from .initializer import Normal
from .layer import Layer
from ..hints import IntOrPair
from .param_attr import ParamAttr


class Conv2D(Layer):
    """2-D convolution; the filter is ``[out_channels, in_channels / groups, kh, kw]``.

    Default filter init is Paddle's: Normal(0, sqrt(2 / (kh * kw * in_channels))).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
                 padding: IntOrPair | str = 0, dilation: IntOrPair = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: ParamAttr | bool | None = None, bias_attr: ParamAttr | bool | None = None,
                 data_format: str = "NCHW") -> None:
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError(f"Conv2D: only padding_mode='zeros' is supported, got {padding_mode!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2D: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by groups ({groups})")
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = F._pair(kernel_size, "kernel_size")
        self._stride, self._padding, self._dilation, self._groups = stride, padding, dilation, groups
        self._data_format = data_format
        std = math.sqrt(2.0 / (self._kernel_size[0] * self._kernel_size[1] * self._in_channels))
        self.weight = self.create_parameter([out_channels, in_channels // groups] + self._kernel_size,
                                            attr=weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, stride=self._stride, padding=self._padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}")


class Conv2DTranspose(Layer):
    """2-D transposed convolution; the filter is ``[in_channels, out_channels / groups, kh, kw]``
    (Paddle's layout), default init as Conv2D's: Normal(0, sqrt(2 / (kh * kw * in_channels)))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
                 padding: IntOrPair | str = 0, output_padding: IntOrPair = 0, groups: int = 1,
                 dilation: IntOrPair = 1, weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, data_format: str = "NCHW") -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2DTranspose: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = F._pair(kernel_size, "kernel_size")
        self._stride, self._padding, self._output_padding = stride, padding, output_padding
        self._dilation, self._groups, self._data_format = dilation, groups, data_format
        std = math.sqrt(2.0 / (self._kernel_size[0] * self._kernel_size[1] * self._in_channels))
        self.weight = self.create_parameter([in_channels, out_channels // groups] + self._kernel_size,
                                            attr=weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, output_size=None):
        return F.conv2d_transpose(x, self.weight, self.bias, stride=self._stride, padding=self._padding,
                                  output_padding=self._output_padding, groups=self._groups,
                                  dilation=self._dilation, data_format=self._data_format, output_size=output_size)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}")


class MaxPool2D(Layer):
    """2-D max pooling of NCHW input (see ``F.max_pool2d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair | str = 0,
                 ceil_mode: bool = False, return_mask: bool = False, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.return_mask, self.data_format = ceil_mode, return_mask, data_format

    def forward(self, x):
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.return_mask,
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
