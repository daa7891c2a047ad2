"""Loss layers over the composites of ``runtime/ops/nn_loss_more.py`` (Paddle's nn.HingeEmbeddingLoss,
CosineEmbeddingLoss, TripletMarginLoss, SoftMarginLoss, MultiLabelSoftMarginLoss, PoissonNLLLoss,
GaussianNLLLoss) and nn.HuberLoss (``F.smooth_l1_loss``, as Paddle's)."""
from ..hints import TensorLike
from . import functional as F
from .layer import Layer


class _Loss(Layer):
    """A loss layer: checks ``reduction`` and keeps its arguments for ``F.<_fn>``."""

    _fn = ""

    def __init__(self, reduction="mean", **kwargs):
        super().__init__()
        F._check_reduction(reduction, type(self).__name__)
        self.reduction, self._kwargs = reduction, kwargs

    def forward(self, *inputs):
        return getattr(F, self._fn)(*inputs, reduction=self.reduction, **self._kwargs)


class HuberLoss(_Loss):
    """``F.smooth_l1_loss(input, label, reduction, delta, is_huber)``."""

    _fn = "smooth_l1_loss"

    def __init__(self, reduction: str = "mean", delta: float = 1.0, is_huber: bool = True,
                 name: str | None = None) -> None:
        super().__init__(reduction, delta=delta, is_huber=is_huber)


class HingeEmbeddingLoss(_Loss):
    """``F.hinge_embedding_loss(input, label, margin, reduction)``."""

    _fn = "hinge_embedding_loss"

    def __init__(self, margin: float = 1.0, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, margin=margin)


class CosineEmbeddingLoss(_Loss):
    """``F.cosine_embedding_loss(input1, input2, label, margin, reduction)``."""

    _fn = "cosine_embedding_loss"

    def __init__(self, margin: float = 0, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, margin=margin)


class TripletMarginLoss(_Loss):
    """``F.triplet_margin_loss(input, positive, negative, margin, p, epsilon, swap, reduction)``."""

    _fn = "triplet_margin_loss"

    def __init__(self, margin: float = 1.0, p: float = 2.0, epsilon: float = 1e-6, swap: bool = False,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, margin=margin, p=p, epsilon=epsilon, swap=swap)


class SoftMarginLoss(_Loss):
    """``F.soft_margin_loss(input, label, reduction)``."""

    _fn = "soft_margin_loss"

    def __init__(self, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """``F.multi_label_soft_margin_loss(input, label, weight, reduction)``."""

    _fn = "multi_label_soft_margin_loss"

    def __init__(self, weight: TensorLike | None = None, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__(reduction, weight=weight)


class PoissonNLLLoss(_Loss):
    """``F.poisson_nll_loss(input, label, log_input, full, epsilon, reduction)``."""

    _fn = "poisson_nll_loss"

    def __init__(self, log_input: bool = True, full: bool = False, epsilon: float = 1e-8, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, log_input=log_input, full=full, epsilon=epsilon)


class GaussianNLLLoss(_Loss):
    """``F.gaussian_nll_loss(input, label, variance, full, epsilon, reduction)``."""

    _fn = "gaussian_nll_loss"

    def __init__(self, full: bool = False, epsilon: float = 1e-6, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__(reduction, full=full, epsilon=epsilon)
