"""Loss layers wrapping ``F.cross_entropy`` and ``F.mse_loss``."""
from . import functional as F
from .layer import Layer
from ..hints import TensorLike


class CrossEntropyLoss(Layer):
    """Softmax cross-entropy between logits and labels; the arguments are those of ``F.cross_entropy``."""

    def __init__(self, weight: TensorLike | None = None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True, label_smoothing: float = 0.0,
                 name: str | None = None) -> None:
        super().__init__()
        F._check_reduction(reduction, "CrossEntropyLoss")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax, label_smoothing=self.label_smoothing)


class MSELoss(Layer):
    """Mean squared error; ``reduction`` is "mean", "sum" or "none" (ValueError otherwise)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        F._check_reduction(reduction, "MSELoss")
        self.reduction = reduction

    def forward(self, input, label):
        return F.mse_loss(input, label, reduction=self.reduction)
