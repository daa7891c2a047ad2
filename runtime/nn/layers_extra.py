"""Layers over the composite functions that Paddle models use often: ``AdaptiveAvgPool2D``
(ResNet/MobileNet heads), ``BCEWithLogitsLoss`` and ``Pad2D``."""
from ..hints import TensorLike
from . import functional as F
from .layer import Layer


class AdaptiveAvgPool2D(Layer):
    """Average pooling to a fixed ``output_size`` (see ``F.adaptive_avg_pool2d``)."""

    def __init__(self, output_size: int | list[int], data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.output_size = output_size
        self.data_format = data_format

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size, data_format=self.data_format)


class BCEWithLogitsLoss(Layer):
    """``F.binary_cross_entropy_with_logits`` as a layer."""

    def __init__(self, weight: TensorLike | None = None, reduction: str = "mean",
                 pos_weight: TensorLike | None = None, name: str | None = None) -> None:
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, weight=self.weight,
                                                  reduction=self.reduction, pos_weight=self.pos_weight)


class Pad2D(Layer):
    """Pads the H and W dims of NCHW input by ``padding`` (an int, or [left, right, top, bottom]) with
    ``mode`` "constant" (``value``), "reflect", "replicate" or "circular" (see ``F.pad``)."""

    def __init__(self, padding: int | list[int], mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._pad = [int(padding)] * 4 if isinstance(padding, int) else [int(p) for p in padding]
        if len(self._pad) != 4:
            raise ValueError(f"Pad2D: padding must be an int or 4 ints [left, right, top, bottom], got {padding}")
        self._mode, self._value, self._data_format = mode, value, data_format

    def forward(self, x):
        return F.pad(x, self._pad, mode=self._mode, value=self._value, data_format=self._data_format)
