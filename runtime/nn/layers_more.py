"""``nn.Conv3DTranspose``, ``nn.Bilinear`` and ``nn.MaxUnPool1D``/``2D``/``3D`` (Paddle's parameter names
and shapes, so state dicts load across)."""
from . import functional as F
from .layer import Layer
from .param_attr import ParamAttr
from ..hints import IntOrOne, IntOrPair, IntOrTriple


class Conv3DTranspose(Layer):
    """3-D transposed convolution of NCDHW (or NDHWC) input; the filter is
    ``[in_channels, out_channels / groups, kd, kh, kw]`` (Xavier-uniform by default, as Paddle's)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrTriple, stride: IntOrTriple = 1,
                 padding: IntOrTriple | str = 0, output_padding: IntOrTriple = 0, groups: int = 1,
                 dilation: IntOrTriple = 1, weight_attr: ParamAttr | bool | None = None,
                 bias_attr: ParamAttr | bool | None = None, data_format: str = "NCDHW") -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv3DTranspose: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = F._ntuple(kernel_size, 3, "kernel_size")
        self._stride, self._padding, self._output_padding = stride, padding, output_padding
        self._dilation, self._groups, self._data_format = dilation, groups, data_format
        self.weight = self.create_parameter([in_channels, out_channels // groups] + self._kernel_size,
                                            attr=weight_attr)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, output_size=None):
        return F.conv3d_transpose(x, self.weight, self.bias, self._stride, self._padding, self._output_padding,
                                  self._groups, self._dilation, output_size, self._data_format)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}")


class Bilinear(Layer):
    """``F.bilinear`` with ``weight`` [out_features, in1_features, in2_features] (Xavier-uniform) and ``bias``
    [1, out_features] (zeros)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 weight_attr: ParamAttr | bool | None = None, bias_attr: ParamAttr | bool | None = None,
                 name: str | None = None) -> None:
        super().__init__()
        self._in1_features, self._in2_features, self._out_features = in1_features, in2_features, out_features
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return f"in1_features={self._in1_features}, in2_features={self._in2_features}, " \
               f"out_features={self._out_features}"


class _MaxUnPool(Layer):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None, output_size=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size = data_format, output_size

    def forward(self, x, indices):
        return getattr(F, f"max_unpool{self._nd}d")(x, indices, self.ksize, self.stride, self.padding,
                                                      self.data_format, self.output_size)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxUnPool1D(_MaxUnPool):
    """``F.max_unpool1d``: the inverse of ``MaxPool1D(return_mask=True)`` on NCL input."""

    _nd = 1

    def __init__(self, kernel_size: IntOrOne, stride: IntOrOne | None = None, padding: IntOrOne = 0,
                 data_format: str = "NCL", output_size: list | None = None, name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool2D(_MaxUnPool):
    """``F.max_unpool2d``: the inverse of ``MaxPool2D(return_mask=True)`` on NCHW input."""

    def __init__(self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0,
                 data_format: str = "NCHW", output_size: list | None = None, name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool3D(_MaxUnPool):
    """``F.max_unpool3d``: the inverse of ``MaxPool3D(return_mask=True)`` on NCDHW input."""

    _nd = 3

    def __init__(self, kernel_size: IntOrTriple, stride: IntOrTriple | None = None, padding: IntOrTriple = 0,
                 data_format: str = "NCDHW", output_size: list | None = None, name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size)
