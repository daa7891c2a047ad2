"""Layers over the composite functions that Paddle models use often: ``AdaptiveAvgPool2D``
(ResNet/MobileNet heads) and ``BCEWithLogitsLoss``."""
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
