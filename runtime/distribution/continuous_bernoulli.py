"""ContinuousBernoulli: the density proportional to ``p^x (1 - p)^(1 - x)`` on [0, 1], with Paddle's
formulas (near ``p = 0.5``, inside ``lims``, the normaliser, mean and variance are Taylor expansions)."""
import numpy as np

import runtime as rt
from .distribution import Distribution, params, shape_list, to_param


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution with parameter ``probs`` (clipped to [eps, 1 - eps])."""

    def __init__(self, probs, lims=(0.499, 0.501)):
        (p,) = params(probs)
        if p.ndim == 0 and not hasattr(probs, "dtype"):
            p = rt.reshape(p, [1])  # a Python number becomes shape [1], as Paddle's
        self._dtype = str(p.dtype)
        self.lims = tuple(float(v) for v in lims)
        eps = float(np.finfo(self._dtype).eps)
        self.probs = rt.clip(p, min=eps, max=1.0 - eps)
        super().__init__(tuple(self.probs.shape))

    def _outside(self):
        return rt.logical_or(self.probs <= self.lims[0], self.probs > self.lims[1])

    def _cut_probs(self):
        return rt.where(self._outside(), self.probs, rt.full_like(self.probs, self.lims[0]))

    @staticmethod
    def _tanh_inverse(v):
        return 0.5 * (rt.log1p(v) - rt.log1p(-v))

    def _log_constant(self):
        cut = self._cut_probs()
        below = rt.where(cut <= 0.5, cut, rt.zeros_like(cut))
        above = rt.where(cut >= 0.5, cut, rt.ones_like(cut))
        propose = rt.log(2.0 * rt.abs(self._tanh_inverse(1.0 - 2.0 * cut))) - rt.where(
            cut <= 0.5, rt.log1p(-2.0 * below), rt.log(2.0 * above - 1.0))
        x = (self.probs - 0.5) ** 2
        taylor = float(np.log(2.0)) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return rt.where(self._outside(), propose, taylor)

    @property
    def mean(self):
        """The mean (a Taylor expansion near 0.5)."""
        cut = self._cut_probs()
        propose = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * self._tanh_inverse(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        return rt.where(self._outside(), propose, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x)

    @property
    def variance(self):
        """The variance (a Taylor expansion near 0.5)."""
        cut = self._cut_probs()
        propose = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / (rt.log1p(-cut) - rt.log(cut)) ** 2
        x = (self.probs - 0.5) ** 2
        return rt.where(self._outside(), propose, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def rsample(self, shape=()):
        """``icdf(u)``, ``u ~ U[0, 1)``: reparameterised."""
        u = rt.rand(self._draw_dims(shape_list(shape), self.probs), dtype=self._dtype)
        return self.icdf(u)

    def log_prob(self, value):
        """``log C(p) + x log p + (1 - x) log(1 - p)``."""
        v = to_param(value, self._dtype)
        ce = v * rt.log(self.probs) + (1.0 - v) * rt.log(1.0 - self.probs)
        eps = float(np.finfo(self._dtype).eps)
        ce = rt.where(rt.isinf(ce), rt.full_like(ce, -eps), ce)  # Paddle's nan_to_num(neginf=-eps)
        return self._log_constant() + ce

    def entropy(self):
        """``-log C(p) + mean (log(1 - p) - log p) - log(1 - p)`` (0 at p = 0.5)."""
        log_p, log_q = rt.log(self.probs), rt.log1p(-self.probs)
        h = -self._log_constant() + self.mean * (log_q - log_p) - log_q
        return rt.where(self.probs == 0.5, rt.zeros_like(self.probs), h)

    def cdf(self, value):
        """The CDF (``value`` itself near p = 0.5), 0 below 0 and 1 above 1."""
        v = to_param(value, self._dtype)
        cut = self._cut_probs()
        cdfs = (rt.pow(cut, v) * rt.pow(1.0 - cut, 1.0 - v) + cut - 1.0) / (2.0 * cut - 1.0)
        inner = rt.where(self._outside(), cdfs, v)
        return rt.where(v <= 0.0, rt.zeros_like(v), rt.where(v >= 1.0, rt.ones_like(v), inner))

    def icdf(self, value):
        """The quantile function."""
        v = to_param(value, self._dtype)
        cut = self._cut_probs()
        q = (rt.log1p(-cut + v * (2.0 * cut - 1.0)) - rt.log1p(-cut)) / (rt.log(cut) - rt.log1p(-cut))
        return rt.where(self._outside(), q, v)

    def kl_divergence(self, other):
        """``-H(self) - (log C(q) + mean (log q - log(1 - q)) + log(1 - q))``."""
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two Continuous Bernoulli distributions should share the same "
                             "`batch_shape`.")
        log_q, log_1q = rt.log(other.probs), rt.log1p(-other.probs)
        return -self.entropy() - (other._log_constant() + self.mean * (log_q - log_1q) + log_1q)
