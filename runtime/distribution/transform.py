"""Paddle's transforms: ``forward``, ``inverse``, ``forward_log_det_jacobian`` (at x) and
``inverse_log_det_jacobian`` (at y), with the event ranks of their domain and codomain (0 for the
elementwise ones; ``TransformedDistribution`` sums the log-determinants over them as Paddle's)."""
import math

import numpy as np

import runtime as rt
from ..ops.composites_extra import _dim
from .distribution import to_param


class Transform:
    """The base: ``forward(x)``, ``inverse(y)`` and the log |det J| of each direction."""

    domain_event_rank = 0     # Paddle's _domain.event_rank
    codomain_event_rank = 0   # Paddle's _codomain.event_rank

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        """``y = f(x)``."""
        return self._forward(x)

    def inverse(self, y):
        """``x = f^-1(y)``."""
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """``log |f'(x)|``."""
        return self._forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """``log |(f^-1)'(y)|``: minus the forward one at ``f^-1(y)``."""
        return -self._forward_log_det_jacobian(self._inverse(y))

    def forward_shape(self, shape):
        """The shape of ``forward``'s output for an input of ``shape``."""
        return tuple(shape)

    def inverse_shape(self, shape):
        """The shape of ``inverse``'s output for an input of ``shape``."""
        return tuple(shape)


class ExpTransform(Transform):
    """``y = exp(x)``."""

    def _forward(self, x):
        return rt.exp(x)

    def _inverse(self, y):
        return rt.log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class AffineTransform(Transform):
    """``y = loc + scale * x``."""

    def __init__(self, loc, scale):
        self.loc, self.scale = to_param(loc), to_param(scale)

    def _forward(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def _forward_log_det_jacobian(self, x):
        return rt.log(rt.abs(self.scale))  # the shape of scale, not of x, as Paddle's


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``."""

    def _forward(self, x):
        return rt.sigmoid(x)

    def _inverse(self, y):
        return rt.log(y) - rt.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -rt.nn.functional.softplus(-x) - rt.nn.functional.softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``."""

    def _forward(self, x):
        return rt.tanh(x)

    def _inverse(self, y):
        return 0.5 * (rt.log1p(y) - rt.log1p(-y))

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - rt.nn.functional.softplus(-2.0 * x))


class PowerTransform(Transform):
    """``y = x^power`` (for x > 0)."""

    def __init__(self, power):
        self.power = to_param(power)

    def _forward(self, x):
        return rt.pow(x, self.power)

    def _inverse(self, y):
        return rt.pow(y, 1.0 / self.power)

    def _forward_log_det_jacobian(self, x):
        return rt.log(rt.abs(self.power * rt.pow(x, self.power - 1.0)))


class AbsTransform(Transform):
    """``y = |x|`` (not bijective: ``inverse`` gives the pair ``(-y, y)``, as Paddle's)."""

    def _forward(self, x):
        return rt.abs(x)

    def inverse(self, y):
        """``(-y, y)``."""
        return -y, y

    def inverse_log_det_jacobian(self, y):
        """``(0, 0)``."""
        zero = rt.zeros_like(y)
        return zero, zero

    def _forward_log_det_jacobian(self, x):
        return rt.zeros_like(x)


class ChainTransform(Transform):
    """The composition: ``transforms[0]`` first."""

    def __init__(self, transforms):
        self.transforms = list(transforms)
        if not all(isinstance(t, Transform) for t in self.transforms):
            raise TypeError("ChainTransform: all elements of transforms must be Transform")
        rank = self.transforms[-1].codomain_event_rank if self.transforms else 0
        for t in reversed(self.transforms):
            rank = max(rank - (t.codomain_event_rank - t.domain_event_rank), t.domain_event_rank)
        self.domain_event_rank = rank
        rank = self.transforms[0].domain_event_rank if self.transforms else 0
        for t in self.transforms:
            rank = max(rank + (t.codomain_event_rank - t.domain_event_rank), t.codomain_event_rank)
        self.codomain_event_rank = rank

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total, rank = 0.0, self.domain_event_rank
        for t in self.transforms:
            total = total + sum_rightmost(t.forward_log_det_jacobian(x), rank - t.domain_event_rank)
            x = t.forward(x)
            rank += t.codomain_event_rank - t.domain_event_rank
        return total

    def forward_shape(self, shape):
        """The shape after every transform."""
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape):
        """The shape before every transform."""
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return tuple(shape)


def sum_rightmost(x, n):
    """``x`` summed over its last ``n`` dims."""
    return rt.sum(x, axis=list(range(-n, 0))) if n > 0 else x


class IndependentTransform(Transform):
    """``base`` with its last ``reinterpreted_batch_rank`` batch dims read as event dims (the log-determinant
    summed over them)."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"Expected 'reinterpreted_batch_rank' is grater than zero, but got "
                             f"{reinterpreted_batch_rank}")
        self._base, self._reinterpreted_batch_rank = base, int(reinterpreted_batch_rank)
        self.domain_event_rank = base.domain_event_rank + self._reinterpreted_batch_rank
        self.codomain_event_rank = base.codomain_event_rank + self._reinterpreted_batch_rank

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x), self._reinterpreted_batch_rank)

    def forward_shape(self, shape):
        """The base's."""
        return self._base.forward_shape(shape)

    def inverse_shape(self, shape):
        """The base's."""
        return self._base.inverse_shape(shape)


class ReshapeTransform(Transform):
    """The event dims ``in_event_shape`` reshaped to ``out_event_shape`` (log-determinant 0)."""

    def __init__(self, in_event_shape, out_event_shape):
        self.in_event_shape, self.out_event_shape = tuple(in_event_shape), tuple(out_event_shape)
        if int(np.prod(self.in_event_shape)) != int(np.prod(self.out_event_shape)):
            raise ValueError(f"The numel of 'in_event_shape' should be 'out_event_shape', but got "
                             f"{int(np.prod(self.in_event_shape))}!={int(np.prod(self.out_event_shape))}")
        self.domain_event_rank, self.codomain_event_rank = len(self.in_event_shape), len(self.out_event_shape)

    def _reshape(self, x, old, new):
        lead = [_dim(x, i) for i in range(x.ndim - len(old))]
        return rt.reshape(x, lead + list(new))

    def _forward(self, x):
        return self._reshape(x, self.in_event_shape, self.out_event_shape)

    def _inverse(self, y):
        return self._reshape(y, self.out_event_shape, self.in_event_shape)

    def _forward_log_det_jacobian(self, x):
        lead = [_dim(x, i) for i in range(x.ndim - len(self.in_event_shape))]
        return rt.zeros(lead, dtype=str(x.dtype))

    def forward_shape(self, shape):
        """``shape`` with its event dims replaced."""
        return tuple(shape[:len(shape) - len(self.in_event_shape)]) + self.out_event_shape

    def inverse_shape(self, shape):
        """``shape`` with its event dims replaced back."""
        return tuple(shape[:len(shape) - len(self.out_event_shape)]) + self.in_event_shape


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (not injective: ``inverse`` is ``log(y)``; no log-determinant)."""

    domain_event_rank = codomain_event_rank = 1

    def _forward(self, x):
        e = rt.exp(x - rt.max(x, axis=-1, keepdim=True))
        return e / rt.sum(e, axis=-1, keepdim=True)

    def _inverse(self, y):
        return rt.log(y)

    def _forward_log_det_jacobian(self, x):
        raise NotImplementedError("SoftmaxTransform is not injective: it has no log-determinant")


class StickBreakingTransform(Transform):
    """The stick-breaking map of R^K onto the (K+1)-simplex."""

    domain_event_rank = codomain_event_rank = 1

    def _offset_log(self, k, dtype):
        return rt.to_tensor(np.log(np.arange(k, 0, -1, dtype=np.float64)).astype(str(dtype)))

    def _forward(self, x):
        k = x.shape[-1]
        z = rt.sigmoid(x - self._offset_log(k, x.dtype))
        z_cumprod = rt.cumprod(1.0 - z, dim=-1)
        one = rt.ones_like(z[..., :1])
        return rt.concat([z, one], axis=-1) * rt.concat([one, z_cumprod], axis=-1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        sf = 1.0 - rt.cumsum(y_crop, axis=-1)
        return rt.log(y_crop) - rt.log(sf) + self._offset_log(y.shape[-1] - 1, y.dtype)

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        x = x - self._offset_log(x.shape[-1], x.dtype)
        return rt.sum(-x + rt.nn.functional.log_sigmoid(x) + rt.log(y[..., :-1]), axis=-1)

    def forward_shape(self, shape):
        """One more entry in the last dim."""
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        """One fewer entry in the last dim."""
        return tuple(shape[:-1]) + (shape[-1] - 1,)
