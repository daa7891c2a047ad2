"""Layers of the activations in ``runtime/ops/nn_activation_extra.py`` (Paddle's nn.ReLU6, nn.Hardswish,
nn.PReLU, nn.SELU...): each holds its arguments and calls the functional form.  ``PReLU`` keeps its
slopes in the parameter ``_weight`` (Paddle's name, so state dicts match)."""
from . import functional as F
from .initializer import Constant
from .layer import Layer
from .layers_activation import Silu
from .param_attr import ParamAttr


def _simple(name, fn_name, doc):
    def __init__(self, name: str | None = None) -> None:
        Layer.__init__(self)

    def forward(self, x):
        return getattr(F, fn_name)(x)

    return type(name, (Layer,), {"__init__": __init__, "forward": forward, "__doc__": doc,
                                 "__module__": __name__})


ReLU6 = _simple("ReLU6", "relu6", "``F.relu6(x) = min(max(x, 0), 6)``.")
Hardswish = _simple("Hardswish", "hardswish", "``F.hardswish(x) = x * relu6(x + 3) / 6``.")
Hardsigmoid = _simple("Hardsigmoid", "hardsigmoid", "``F.hardsigmoid(x)`` with Paddle's slope 1/6 and offset 0.5.")
Softsign = _simple("Softsign", "softsign", "``F.softsign(x) = x / (1 + |x|)``.")
Tanhshrink = _simple("Tanhshrink", "tanhshrink", "``F.tanhshrink(x) = x - tanh(x)``.")


class SiLU(Silu):
    """``F.silu(x) = x * sigmoid(x)`` (Paddle's nn.SiLU; ``inplace`` is accepted and ignored)."""

    def __init__(self, inplace: bool = False, name: str | None = None) -> None:
        super().__init__()


class _Threshold(Layer):
    _fn = ""

    def __init__(self, threshold: float = 0.5, name: str | None = None) -> None:
        super().__init__()
        self._threshold = threshold

    def forward(self, x):
        return getattr(F, self._fn)(x, self._threshold)

    def extra_repr(self):
        return f"threshold={self._threshold}"


class Softshrink(_Threshold):
    """``F.softshrink(x, threshold)``."""

    _fn = "softshrink"


class Hardshrink(_Threshold):
    """``F.hardshrink(x, threshold)``."""

    _fn = "hardshrink"


class ThresholdedReLU(Layer):
    """``F.thresholded_relu(x, threshold, value)``."""

    def __init__(self, threshold: float = 1.0, value: float = 0.0, name: str | None = None) -> None:
        super().__init__()
        self._threshold, self._value = threshold, value

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, self._value)


class Hardtanh(Layer):
    """``F.hardtanh(x, min, max)``."""

    def __init__(self, min: float = -1.0, max: float = 1.0, name: str | None = None) -> None:  # noqa: A002
        super().__init__()
        self._min, self._max = min, max

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max)


class SELU(Layer):
    """``F.selu(x, scale, alpha)``."""

    def __init__(self, scale: float = 1.0507009873554804934193349852946,
                 alpha: float = 1.6732632423543772848170429916717, name: str | None = None) -> None:
        super().__init__()
        self._scale, self._alpha = scale, alpha

    def forward(self, x):
        return F.selu(x, self._scale, self._alpha)


class CELU(Layer):
    """``F.celu(x, alpha)``."""

    def __init__(self, alpha: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self._alpha = alpha

    def forward(self, x):
        return F.celu(x, self._alpha)


class GLU(Layer):
    """``F.glu(x, axis)``: the first half of ``x`` along ``axis`` gated by the sigmoid of the second."""

    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.glu(x, self._axis)


class PReLU(Layer):
    """``F.prelu(x, _weight)`` with learned slopes: ``num_parameters`` is 1 (one slope) or the channels."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr: ParamAttr | bool | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._num_parameters, self._init, self._data_format = int(num_parameters), init, data_format
        self._weight = self.create_parameter([self._num_parameters], attr=weight_attr,
                                             default_initializer=Constant(float(init)))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}"
