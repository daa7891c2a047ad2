"""Loss and distance layers over the composites of ``runtime/ops/nn_loss_extra.py`` (Paddle's nn.L1Loss,
nn.SmoothL1Loss, nn.NLLLoss, nn.KLDivLoss, nn.BCELoss, nn.MarginRankingLoss, nn.CosineSimilarity,
nn.PairwiseDistance)."""
from ..hints import TensorLike
from . import functional as F
from .layer import Layer


class L1Loss(Layer):
    """``F.l1_loss(input, label, reduction)``."""

    def __init__(self, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        F._check_reduction(reduction, "L1Loss")
        self.reduction = reduction

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction)


class SmoothL1Loss(Layer):
    """``F.smooth_l1_loss(input, label, reduction, delta, is_huber)``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, is_huber: bool = True,
                 name: str | None = None) -> None:
        super().__init__()
        F._check_reduction(reduction, "SmoothL1Loss")
        self.reduction, self.delta, self.is_huber = reduction, delta, is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


class NLLLoss(Layer):
    """``F.nll_loss(input, label, weight, ignore_index, reduction)`` of log-probabilities."""

    def __init__(self, weight: TensorLike | None = None, ignore_index: int = -100, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__()
        F._check_reduction(reduction, "NLLLoss")
        self._weight, self._ignore_index, self._reduction = weight, ignore_index, reduction

    def forward(self, input, label):
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class KLDivLoss(Layer):
    """``F.kl_div(input, label, reduction, log_target)``."""

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class BCELoss(Layer):
    """``F.binary_cross_entropy(input, label, weight, reduction)`` of probabilities."""

    def __init__(self, weight: TensorLike | None = None, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        F._check_reduction(reduction, "BCELoss")
        self.weight, self.reduction = weight, reduction

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class MarginRankingLoss(Layer):
    """``F.margin_ranking_loss(input, other, label, margin, reduction)``."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        F._check_reduction(reduction, "MarginRankingLoss")
        self.margin, self.reduction = margin, reduction

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class CosineSimilarity(Layer):
    """``F.cosine_similarity(x1, x2, axis, eps)``."""

    def __init__(self, axis: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self._axis, self._eps)


class PairwiseDistance(Layer):
    """``F.pairwise_distance(x, y, p, epsilon, keepdim)``."""

    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False, name: str | None = None) -> None:
        super().__init__()
        self.p, self.epsilon, self.keepdim = p, epsilon, keepdim

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)
