"""Paddle's bijective transforms (elementwise, event rank 0, except ``ChainTransform`` of them):
``forward``, ``inverse``, ``forward_log_det_jacobian`` (at x), ``inverse_log_det_jacobian`` (at y)."""
import math

import runtime as rt
from .distribution import to_param


class Transform:
    """The base: ``forward(x)``, ``inverse(y)`` and the log |det J| of each direction."""

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
        return rt.log(rt.abs(self.scale)) + rt.zeros_like(x)


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

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total = None
        for t in self.transforms:
            term = t.forward_log_det_jacobian(x)
            total = term if total is None else total + term
            x = t.forward(x)
        return total
