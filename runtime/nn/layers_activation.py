"""Layers of the composite activations (Paddle's nn.Softplus, nn.LeakyReLU, nn.ELU, nn.Silu...).

Each holds its keyword arguments and calls the functional form, which the op
registry declares (``@composite`` in ``runtime/ops/nn_activation.py``).
"""
from . import functional as F
from .layer import Layer


class Softplus(Layer):
    """``F.softplus(x, beta, threshold)``: ``log(1 + exp(beta * x)) / beta``, linear above the threshold."""

    def __init__(self, beta: float = 1, threshold: float = 20, name: str | None = None) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x):
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class LeakyReLU(Layer):
    """``F.leaky_relu(x, negative_slope)``."""

    def __init__(self, negative_slope: float = 0.01, name: str | None = None) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}"


class ELU(Layer):
    """``F.elu(x, alpha)``."""

    def __init__(self, alpha: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return F.elu(x, self.alpha)

    def extra_repr(self):
        return f"alpha={self.alpha}"


class Silu(Layer):
    """``F.silu(x) = x * sigmoid(x)``."""

    def __init__(self, inplace: bool = False, name: str | None = None) -> None:
        super().__init__()
        self._inplace = bool(inplace)

    def forward(self, x):
        return F.silu(x, self._inplace)


class Swish(Silu):
    """``F.swish(x)``, the same function as ``F.silu``."""


class LogSigmoid(Layer):
    """``F.log_sigmoid(x)``."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x):
        return F.log_sigmoid(x)


class Mish(Layer):
    """``F.mish(x) = x * tanh(softplus(x))``."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x):
        return F.mish(x)
