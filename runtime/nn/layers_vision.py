"""Vision layers over ``runtime/ops/nn_vision.py`` and ``conv2d_transpose`` (Paddle's nn.Conv1D,
nn.Conv1DTranspose, nn.Conv2DTranspose, nn.Upsample, nn.GroupNorm, nn.InstanceNorm2D, nn.PixelShuffle...).  Parameter names
and shapes are Paddle's, so state dicts match: ``weight``/``bias`` for the convolutions and GroupNorm,
``scale``/``bias`` for InstanceNorm2D."""
import math

from collections.abc import Sequence

from ..hints import IntOrOne, IntOrPair
from . import functional as F
from .initializer import Constant, Normal
from .layer import Layer
from .layers_conv import padding_pre_pad
from .param_attr import ParamAttr


class Conv1D(Layer):
    """1-D convolution of NCL input; the filter is ``[out_channels, in_channels / groups, k]``,
    initialised as Paddle's: Normal(0, sqrt(2 / (k * in_channels)))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrOne, stride: IntOrOne = 1,
                 padding: IntOrPair | str = 0, dilation: IntOrOne = 1, groups: int = 1, padding_mode: str = "zeros", weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, data_format: str = "NCL", *, bias: bool = True) -> None:
        bias_attr = bias_attr if bias else False  # Paddle 3's bias=False, as Conv2D's
        super().__init__()
        self._pad_first = padding_pre_pad("Conv1D", padding_mode, padding, 1)
        self._padding_mode = padding_mode
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv1D: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by groups ({groups})")
        k = int(kernel_size if isinstance(kernel_size, int) else kernel_size[0])
        self._stride, self._padding, self._dilation, self._groups = stride, padding, dilation, groups
        self._data_format = data_format
        self.weight = self.create_parameter([out_channels, in_channels // groups, k], attr=weight_attr,
                                            default_initializer=Normal(0.0, math.sqrt(2.0 / (k * in_channels))))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        padding = self._padding
        if self._pad_first is not None:  # reflect/replicate/circular: F.pad first (Paddle's way)
            x, padding = F.pad(x, self._pad_first, mode=self._padding_mode, data_format=self._data_format), 0
        return F.conv1d(x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups,
                        self._data_format)


class Conv1DTranspose(Layer):
    """1-D transposed convolution of NCL (or NLC) input; the filter is ``[in_channels, out_channels / groups,
    k]`` (Xavier-uniform by default, as Paddle's)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrOne, stride: IntOrOne = 1,
                 padding: IntOrPair | str = 0, output_padding: IntOrOne = 0, groups: int = 1, dilation: IntOrOne = 1,
                 weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, data_format: str = "NCL") -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv1DTranspose: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        self._stride, self._padding, self._output_padding = stride, padding, output_padding
        self._dilation, self._groups, self._data_format = dilation, groups, data_format
        k = int(kernel_size if isinstance(kernel_size, int) else kernel_size[0])
        self.weight = self.create_parameter([in_channels, out_channels // groups, k], attr=weight_attr)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, self.bias, self._stride, self._padding, self._output_padding,
                                  self._groups, self._dilation, output_size, self._data_format)


class Conv2DTranspose(Layer):
    """2-D transposed convolution of NCHW (or NHWC) input; the filter is ``[in_channels, out_channels / groups,
    kh, kw]`` (Xavier-uniform by default, as Paddle's)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
                 padding: IntOrPair | str = 0, output_padding: IntOrPair = 0, groups: int = 1, dilation: IntOrPair = 1,
                 weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, data_format: str = "NCHW") -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2DTranspose: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        self._stride, self._padding, self._output_padding = stride, padding, output_padding
        self._dilation, self._groups, self._data_format = dilation, groups, data_format
        self.weight = self.create_parameter([in_channels, out_channels // groups] + F._pair(kernel_size, "kernel_size"),
                                            attr=weight_attr)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, output_size=None):
        return F.conv2d_transpose(x, self.weight, self.bias, self._stride, self._padding, self._output_padding,
                                  self._dilation, self._groups, output_size, self._data_format)


class _Wrap(Layer):
    """A layer that calls ``F.<_fn>(x, **its arguments)``."""

    _fn = ""

    def __init__(self, **kwargs) -> None:
        super().__init__()
        kwargs.pop("name", None)
        self._kwargs = kwargs

    def forward(self, x):
        return getattr(F, self._fn)(x, **self._kwargs)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items())


class MaxPool1D(_Wrap):
    """``F.max_pool1d`` of NCL input."""

    _fn = "max_pool1d"

    def __init__(self, kernel_size: IntOrOne, stride: IntOrOne | None = None, padding: IntOrPair | str = 0,
                 return_mask: bool = False, ceil_mode: bool = False,
                 name: str | None = None) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode)


class AvgPool1D(_Wrap):
    """``F.avg_pool1d`` of NCL input."""

    _fn = "avg_pool1d"

    def __init__(self, kernel_size: IntOrOne, stride: IntOrOne | None = None, padding: IntOrPair | str = 0,
                 exclusive: bool = True, ceil_mode: bool = False,
                 name: str | None = None) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, exclusive=exclusive,
                         ceil_mode=ceil_mode)


class AdaptiveAvgPool1D(_Wrap):
    """``F.adaptive_avg_pool1d`` of NCL input."""

    _fn = "adaptive_avg_pool1d"

    def __init__(self, output_size: int, name: str | None = None) -> None:
        super().__init__(output_size=output_size)


class AdaptiveMaxPool2D(_Wrap):
    """``F.adaptive_max_pool2d`` of NCHW input."""

    _fn = "adaptive_max_pool2d"

    def __init__(self, output_size: IntOrPair, return_mask: bool = False, name: str | None = None) -> None:
        super().__init__(output_size=output_size, return_mask=return_mask)


class PixelShuffle(_Wrap):
    """``F.pixel_shuffle``: [N, C * r * r, H, W] -> [N, C, H * r, W * r]."""

    _fn = "pixel_shuffle"

    def __init__(self, upscale_factor: int, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(upscale_factor=upscale_factor, data_format=data_format)


class Unfold(_Wrap):
    """``F.unfold``: sliding blocks as columns."""

    _fn = "unfold"

    def __init__(self, kernel_sizes: IntOrPair, dilations: IntOrPair = 1, paddings: IntOrPair = 0,
                 strides: IntOrPair = 1, name: str | None = None) -> None:
        super().__init__(kernel_sizes=kernel_sizes, strides=strides, paddings=paddings, dilations=dilations)


class Pad2D(_Wrap):
    """``F.pad`` of an NCHW input; ``padding`` is an int or [left, right, top, bottom]."""

    _fn = "pad"

    def __init__(self, padding: int | Sequence[int], mode: str = "constant", value: float = 0.0, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        padding = [padding] * 4 if isinstance(padding, int) else list(padding)
        if len(padding) != 4:
            raise ValueError(f"Pad2D: padding must be an int or 4 ints, got {padding}")
        super().__init__(pad=padding, mode=mode, value=value, data_format=data_format)


class LocalResponseNorm(_Wrap):
    """``F.local_response_norm``."""

    _fn = "local_response_norm"

    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size=size, alpha=alpha, beta=beta, k=k, data_format=data_format)


class Upsample(_Wrap):
    """``F.interpolate`` as a layer (modes "nearest", "linear", "bilinear", "trilinear", "bicubic", "area")."""

    _fn = "interpolate"

    def __init__(self, size: IntOrPair | None = None, scale_factor: float | Sequence[float] | None = None,
                 mode: str = "nearest", align_corners: bool = False,
                 align_mode: int = 0, data_format: str | None = None,
                 recompute_scale_factor: bool | None = None,
                 name: str | None = None) -> None:
        super().__init__(size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners,
                         align_mode=align_mode, data_format=data_format,
                         recompute_scale_factor=recompute_scale_factor)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour upsampling of NCHW input."""

    def __init__(self, size: IntOrPair | None = None, scale_factor: float | Sequence[float] | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size, scale_factor, "nearest", False, 0, data_format)


class UpsamplingBilinear2D(Upsample):
    """Bilinear upsampling of NCHW input with ``align_corners=True`` (as Paddle's)."""

    def __init__(self, size: IntOrPair | None = None, scale_factor: float | Sequence[float] | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format)


class Dropout2D(Layer):
    """``F.dropout2d``: zeroes whole channels while training; the identity in ``eval()``."""

    def __init__(self, p: float = 0.5, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, x):
        return F.dropout2d(x, self.p, training=self.training, data_format=self.data_format)


class GroupNorm(Layer):
    """``F.group_norm`` with learned ``weight`` [C] (ones) and ``bias`` [C] (zeros); an attr of False drops one."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05,
                 weight_attr: ParamAttr | bool | None = None, bias_attr: ParamAttr | bool | None = None,
                 data_format: str = "NCHW", name: str | None = None, *, affine: bool = True) -> None:
        if not affine:  # Paddle 3's keyword: no weight and no bias
            weight_attr = bias_attr = False
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self._num_groups, self._num_channels, self._epsilon = num_groups, num_channels, epsilon
        self._data_format = data_format
        self.weight = self.create_parameter([num_channels], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return F.group_norm(x, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNorm(Layer):
    """``F.instance_norm`` with learned ``scale`` [C] (ones) and ``bias`` [C] (zeros)."""

    _ranks, _layout = (4,), "NCHW"

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: ParamAttr | bool | None = None, bias_attr: ParamAttr | bool | None = None,
                 data_format: str | None = None, name: str | None = None) -> None:
        super().__init__()
        if (weight_attr is False) != (bias_attr is False):
            raise ValueError(f"{type(self).__name__}: weight_attr and bias_attr must be False together (as in Paddle)")
        self._epsilon, self._data_format = epsilon, data_format or self._layout
        self.scale = self.create_parameter([num_features], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True)

    def forward(self, x):
        if len(x.shape) not in self._ranks:
            raise ValueError(f"{type(self).__name__} expects a {' or '.join(f'{r}-D' for r in self._ranks)} "
                             f"{self._layout} input, got shape {list(x.shape)}")
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self._epsilon, data_format=self._data_format)


class InstanceNorm1D(_InstanceNorm):
    """``F.instance_norm`` of NCL input, over L per sample and channel."""

    _ranks, _layout = (3,), "NCL"


class InstanceNorm2D(_InstanceNorm):
    """``F.instance_norm`` of NCHW input, over H and W per sample and channel."""


class InstanceNorm3D(_InstanceNorm):
    """``F.instance_norm`` of NCDHW input, over D, H and W per sample and channel."""

    _ranks, _layout = (5,), "NCDHW"
