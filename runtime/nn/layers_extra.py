"""Layers over the composite functions that Paddle models use often: ``AdaptiveAvgPool2D``
(ResNet/MobileNet heads), ``BCEWithLogitsLoss`` and ``SpectralNorm`` (GAN discriminators)."""
import numpy as np

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


class SpectralNorm(Layer):
    """``SpectralNorm(weight_shape)(weight)``: ``weight`` divided by its largest singular value (of the
    matrix with axis ``dim`` first), estimated by ``power_iters`` rounds of power iteration from the
    vectors ``weight_u``/``weight_v`` (non-trainable parameters, drawn from N(0, 1)). As Paddle's op, every
    call starts from those same vectors (they are not updated) and the gradient treats them as constants."""

    def __init__(self, weight_shape: list[int] | tuple[int, ...], dim: int = 0, power_iters: int = 1, eps: float = 1e-12,
                 dtype: str = "float32") -> None:
        super().__init__()
        from .initializer import Normal
        shape = [int(d) for d in weight_shape]
        if not 0 <= dim < len(shape) or min(shape) <= 0:
            raise ValueError(f"SpectralNorm: dim {dim} must index weight_shape {shape}, whose dims must be positive")
        self._dim, self._power_iters, self._eps, self._weight_shape = dim, power_iters, eps, shape
        h = shape[dim]
        self.weight_u = self.create_parameter([h], dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([int(np.prod(shape)) // h], dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = self.weight_v.stop_gradient = True

    def forward(self, weight):
        from ..ops.reduce import sum as sum_
        from ..ops.shape import reshape, transpose
        rank = len(weight.shape)
        mat = weight if self._dim == 0 else transpose(weight, [self._dim] + [d for d in range(rank) if d != self._dim])
        mat = reshape(mat, [self._weight_shape[self._dim], -1])
        fixed = mat.detach()
        u, v = self.weight_u, self.weight_v
        for _ in range(self._power_iters):
            v = F.linear(u, fixed)  # W^T u
            v = v / (v.norm() + self._eps)
            u = F.linear(v, fixed.t())  # W v
            u = u / (u.norm() + self._eps)
        sigma = sum_(u.detach() * F.linear(v.detach(), mat.t()))
        return weight / sigma
