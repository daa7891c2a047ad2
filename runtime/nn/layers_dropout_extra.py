"""Paddle's nn.Dropout3D, AlphaDropout, FeatureAlphaDropout and RReLU: layers over the functions of
``runtime/ops/nn_dropout_extra.py`` that draw while the layer trains and are deterministic in ``eval()``
(no parameters; reprs as Paddle's)."""
from ..hints import TensorLike
from . import functional as F
from .layer import Layer


class Dropout3D(Layer):
    """``F.dropout3d``: zeroes whole channels of an NCDHW (or NDHWC) input while training."""

    def __init__(self, p: float = 0.5, data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, input: TensorLike):  # noqa: A002  (Paddle's argument name)
        return F.dropout3d(input, self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}"


class AlphaDropout(Layer):
    """``F.alpha_dropout`` while training (keeps SELU's mean and variance); the identity in ``eval()``."""

    _fn = "alpha_dropout"

    def __init__(self, p: float = 0.5, name: str | None = None) -> None:
        super().__init__()
        self.p = p

    def forward(self, input: TensorLike):  # noqa: A002  (Paddle's argument name)
        return getattr(F, self._fn)(input, self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}"


class FeatureAlphaDropout(AlphaDropout):
    """``F.feature_alpha_dropout``: alpha dropout of whole channels while training."""

    _fn = "feature_alpha_dropout"


class RReLU(Layer):
    """``F.rrelu``: negative inputs scaled by a slope drawn from [lower, upper) while training, by
    ``(lower + upper) / 2`` in ``eval()``."""

    def __init__(self, lower: float = 0.125, upper: float = 1.0 / 3.0, name: str | None = None) -> None:
        super().__init__()
        self._lower, self._upper = lower, upper

    def forward(self, x: TensorLike):
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self):
        return f"lower={self._lower}, upper={self._upper}, training={self.training}, dtype=float32"


__all__ = ["Dropout3D", "AlphaDropout", "FeatureAlphaDropout", "RReLU"]
