"""Location-scale continuous distributions: Normal, Uniform, LogNormal, Exponential, Laplace, Gumbel,
Cauchy (Paddle's formulas; draws reparameterised from ``randn``/``rand``, so ``rsample`` carries the
gradient to the parameters)."""
import math

import runtime as rt
from .distribution import Distribution, params, static_shape

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.5772156649015329


def _uniform01(d, shape, like, low=0.0, high=1.0):
    """Uniform draws in [low, high) of ``shape + batch_shape`` in ``d``'s dtype."""
    return rt.uniform(d._draw_dims(shape, like), dtype=d._dtype, min=low, max=high)


class _LocScale(Distribution):
    """A distribution with ``loc`` and ``scale`` parameters."""

    def __init__(self, loc, scale, name=None):
        self.loc, self.scale = params(loc, scale)
        self._dtype = str(self.loc.dtype)
        self.name = name or type(self).__name__
        self._like = self.loc + rt.zeros_like(self.scale) if tuple(self.loc.shape) != tuple(self.scale.shape) \
            else self.loc
        super().__init__(static_shape(self.loc, self.scale))


class Normal(_LocScale):
    """The normal distribution ``N(loc, scale^2)``."""

    @property
    def mean(self):
        """``loc``."""
        return self.loc + rt.zeros_like(self.scale)

    @property
    def variance(self):
        """``scale^2``."""
        return self.scale * self.scale + rt.zeros_like(self.loc)

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape`` without gradient (``seed`` is ignored: use ``rt.seed``)."""
        return super().sample(shape)

    def rsample(self, shape=()):
        """``loc + scale * eps``, ``eps ~ N(0, 1)``."""
        eps = rt.randn(self._draw_dims(shape, self._like), dtype=self._dtype)
        return self.loc + self.scale * eps

    def log_prob(self, value):
        """``-(value - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi))``."""
        value = self._value(value)
        var = self.scale * self.scale
        return -((value - self.loc) * (value - self.loc)) / (2.0 * var) - rt.log(self.scale) - _LOG_SQRT_2PI

    def entropy(self):
        """``0.5 + 0.5 log(2 pi) + log(scale)``."""
        return 0.5 + _LOG_SQRT_2PI + rt.log(self.scale) + rt.zeros_like(self.loc)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    def __init__(self, low, high, name=None):
        self.low, self.high = params(low, high)
        self._dtype = str(self.low.dtype)
        self.name = name or "Uniform"
        self._like = self.low + rt.zeros_like(self.high)
        super().__init__(static_shape(self.low, self.high))

    @property
    def mean(self):
        """``(low + high) / 2``."""
        return (self.low + self.high) / 2.0

    @property
    def variance(self):
        """``(high - low)^2 / 12``."""
        d = self.high - self.low
        return d * d / 12.0

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape`` without gradient (``seed`` is ignored: use ``rt.seed``)."""
        return super().sample(shape)

    def rsample(self, shape=()):
        """``low + (high - low) * u``, ``u ~ U[0, 1)``."""
        return self.low + (self.high - self.low) * _uniform01(self, shape, self._like)

    def log_prob(self, value):
        """``log(1 / (high - low))`` inside ``[low, high)``, ``-inf`` outside."""
        value = self._value(value)
        inside = rt.logical_and(self.low < value, value < self.high)
        lp = -rt.log(self.high - self.low) + rt.zeros_like(value)
        return rt.where(inside, lp, rt.full_like(lp, float("-inf")))

    def prob(self, value):
        """``1 / (high - low)`` inside ``[low, high)``, 0 outside."""
        value = self._value(value)
        inside = rt.cast(rt.logical_and(self.low < value, value < self.high), self._dtype)
        return inside / (self.high - self.low)

    def entropy(self):
        """``log(high - low)``."""
        return rt.log(self.high - self.low)


class LogNormal(_LocScale):
    """``exp(X)`` for ``X ~ N(loc, scale^2)``."""

    def __init__(self, loc, scale):
        super().__init__(loc, scale)
        self._base = Normal(self.loc, self.scale)

    @property
    def mean(self):
        """``exp(loc + scale^2 / 2)``."""
        return rt.exp(self._base.mean + self._base.variance / 2.0)

    @property
    def variance(self):
        """``(exp(scale^2) - 1) exp(2 loc + scale^2)``."""
        return rt.expm1(self._base.variance) * rt.exp(2.0 * self._base.mean + self._base.variance)

    def rsample(self, shape=()):
        """``exp`` of a normal draw."""
        return rt.exp(self._base.rsample(shape))

    def log_prob(self, value):
        """The normal log density of ``log(value)`` minus ``log(value)``."""
        value = self._value(value)
        return self._base.log_prob(rt.log(value)) - rt.log(value)

    def entropy(self):
        """The normal entropy plus ``loc``."""
        return self._base.entropy() + self._base.mean


class Exponential(Distribution):
    """The exponential distribution with ``rate``."""

    def __init__(self, rate):
        (self.rate,) = params(rate)
        self._dtype = str(self.rate.dtype)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self):
        """``1 / rate``."""
        return rt.reciprocal(self.rate)

    @property
    def variance(self):
        """``1 / rate^2``."""
        return rt.pow(self.rate, -2.0)

    def rsample(self, shape=()):
        """``-log(u) / rate``, ``u ~ U(0, 1]``."""
        u = 1.0 - _uniform01(self, shape, self.rate)
        return -rt.log(u) / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``."""
        return rt.log(self.rate) - self.rate * self._value(value)

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - rt.log(self.rate)

    def cdf(self, value):
        """``1 - exp(-rate * value)``."""
        return 1.0 - rt.exp(-self.rate * self._value(value))

    def icdf(self, value):
        """``-log(1 - value) / rate``."""
        return -rt.log1p(-self._value(value)) / self.rate


class Laplace(_LocScale):
    """The Laplace distribution with ``loc`` and ``scale``."""

    def __init__(self, loc, scale):
        super().__init__(loc, scale)

    @property
    def mean(self):
        """``loc``."""
        return self.loc + rt.zeros_like(self.scale)

    @property
    def stddev(self):
        """``sqrt(2) scale``."""
        return (2 ** 0.5) * self.scale + rt.zeros_like(self.loc)

    @property
    def variance(self):
        """``2 scale^2``."""
        return rt.pow(self.stddev, 2.0)

    def rsample(self, shape=()):
        """``loc - scale * sign(u) * log(1 - |u|)``, ``u ~ U(-1, 1)``."""
        eps = _uniform01(self, shape, self._like, low=float(-1 + 1e-7), high=1.0)
        return self.loc - self.scale * rt.sign(eps) * rt.log1p(-rt.abs(eps))

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        value = self._value(value)
        return -rt.log(2.0 * self.scale) - rt.abs(value - self.loc) / self.scale

    def entropy(self):
        """``1 + log(2 scale)``."""
        return 1.0 + rt.log(2.0 * self.scale) + rt.zeros_like(self.loc)

    def cdf(self, value):
        """``0.5 - 0.5 sign(value - loc) expm1(-|value - loc| / scale)``."""
        value = self._value(value)
        return 0.5 - 0.5 * rt.sign(value - self.loc) * rt.expm1(-rt.abs(value - self.loc) / self.scale)

    def icdf(self, value):
        """The quantile of ``value``."""
        term = self._value(value) - 0.5
        return self.loc - self.scale * rt.sign(term) * rt.log1p(-2.0 * rt.abs(term))


class Gumbel(_LocScale):
    """The Gumbel (type I extreme value) distribution with ``loc`` and ``scale``."""

    def __init__(self, loc, scale):
        super().__init__(loc, scale)

    @property
    def mean(self):
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * _EULER

    @property
    def variance(self):
        """``pi^2 scale^2 / 6``."""
        return rt.pow(self.scale, 2.0) * (math.pi ** 2) / 6.0 + rt.zeros_like(self.loc)

    @property
    def stddev(self):
        """``sqrt(variance)``."""
        return rt.sqrt(self.variance)

    def rsample(self, shape=()):
        """``loc - scale * log(-log(u))``, ``u ~ U(0, 1)``."""
        u = _uniform01(self, shape, self._like, low=1e-7, high=1.0)
        return self.loc - self.scale * rt.log(-rt.log(u))

    def log_prob(self, value):
        """``-(z + exp(-z)) - log(scale)``, ``z = (value - loc) / scale``."""
        z = (self._value(value) - self.loc) / self.scale
        return -(z + rt.exp(-z)) - rt.log(self.scale)

    def entropy(self):
        """``log(scale) + 1 + euler_gamma``."""
        return rt.log(self.scale) + 1.0 + _EULER + rt.zeros_like(self.loc)

    def cdf(self, value):
        """``exp(-exp(-(value - loc) / scale))``."""
        return rt.exp(-rt.exp(-(self._value(value) - self.loc) / self.scale))


class Cauchy(_LocScale):
    """The Cauchy distribution with ``loc`` and ``scale`` (no mean or variance)."""

    @property
    def mean(self):
        """Raises ValueError, as Paddle's."""
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        """Raises ValueError, as Paddle's."""
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        """Raises ValueError, as Paddle's."""
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None):
        """Draws without gradient."""
        return super().sample(shape)

    def rsample(self, shape=(), name=None):
        """``loc + scale * tan(pi (u - 0.5))``, ``u ~ U(0, 1)``."""
        u = _uniform01(self, shape, self._like, low=1e-7, high=1.0)
        return self.loc + self.scale * rt.tan(math.pi * (u - 0.5))

    def log_prob(self, value, name=None):
        """``-log(pi scale (1 + z^2))``, ``z = (value - loc) / scale``."""
        z = (self._value(value) - self.loc) / self.scale
        return -math.log(math.pi) - rt.log(self.scale) - rt.log1p(z * z)

    def prob(self, value, name=None):
        """``exp(log_prob(value))``."""
        return rt.exp(self.log_prob(value))

    def entropy(self, name=None):
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + rt.log(self.scale) + rt.zeros_like(self.loc)

    def cdf(self, value, name=None):
        """``atan((value - loc) / scale) / pi + 0.5``."""
        return rt.atan((self._value(value) - self.loc) / self.scale) / math.pi + 0.5
