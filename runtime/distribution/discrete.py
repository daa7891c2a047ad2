"""Discrete distributions: Categorical, Bernoulli, Geometric, Multinomial (Paddle's formulas and quirks:
``Categorical(logits)`` samples and takes its entropy from ``softmax(logits)`` but its ``probs(value)`` /
``log_prob(value)`` from ``logits / sum(logits)``, as Paddle's does; ``Bernoulli.rsample`` returns the
relaxed logits ``(logit(u) + logit(p)) / temperature``, as Paddle's)."""
import runtime as rt
from ..dispatch import apply
from ..ops.common import stop_gradient
from ..ops.composites_extra import _dim
from .distribution import Distribution, params, shape_list, to_param


def _lgamma(x):
    return apply("lgamma", x)


class Categorical(Distribution):
    """A categorical distribution over the last dim of ``logits``."""

    def __init__(self, logits, name=None):
        (self.logits,) = params(logits)
        self._dtype = str(self.logits.dtype)
        self.name = name or "Categorical"
        super().__init__(tuple(self.logits.shape[:-1]))

    @property
    def _prob(self):
        """``logits / sum(logits)``, what Paddle's probs/log_prob read (computed when they are called)."""
        return self.logits / rt.sum(self.logits, axis=-1, keepdim=True)

    def _softmax(self):
        return rt.nn.functional.softmax(self.logits, axis=-1)

    def sample(self, shape=()):
        """int64 category indices of shape ``shape + batch_shape``, drawn from ``softmax(logits)`` (by the
        inverse CDF of one uniform draw each)."""
        shape = shape_list(shape)
        cdf = rt.cumsum(self._softmax(), axis=-1)
        # the CDF ends at exactly 1 (x / x), and u in [0, 1) picks the first category whose CDF exceeds it
        # (cdf <= u counted): a category of probability 0 is never drawn, not even at u == 0 or by rounding
        cdf = cdf / cdf[..., -1:]
        u = rt.rand(self._draw_dims(shape, self.logits[..., 0]) + [1], dtype=self._dtype)
        return stop_gradient(rt.sum(rt.cast(cdf <= u, "int64"), axis=-1))

    def entropy(self):
        """``-sum(p log p)`` of ``p = softmax(logits)``."""
        logits = self.logits - rt.max(self.logits, axis=-1, keepdim=True)
        z = rt.sum(rt.exp(logits), axis=-1, keepdim=True)
        p = rt.exp(logits) / z
        return -rt.sum(p * (logits - rt.log(z)), axis=-1)

    def kl_divergence(self, other):
        """KL(softmax(self.logits) || softmax(other.logits)) over the last dim (kept, size 1, as Paddle's)."""
        a = self.logits - rt.max(self.logits, axis=-1, keepdim=True)
        b = other.logits - rt.max(other.logits, axis=-1, keepdim=True)
        za = rt.sum(rt.exp(a), axis=-1, keepdim=True)
        zb = rt.sum(rt.exp(b), axis=-1, keepdim=True)
        p = rt.exp(a) / za
        return rt.sum(p * (a - rt.log(za) - b + rt.log(zb)), axis=-1, keepdim=True)

    def probs(self, value):
        """``(logits / sum(logits))`` at the int category ``value`` (Paddle's indexing rules: a 1-D value on a
        batch picks those categories from every distribution)."""
        value = value if hasattr(value, "dtype") else rt.to_tensor(value)
        if self._prob.ndim == 1:
            return rt.reshape(rt.gather(self._prob, rt.reshape(value, [-1])), list(value.shape))
        if value.ndim == 1:
            idx = rt.reshape(value, [1] * (self._prob.ndim - 1) + [-1])
            lead = [_dim(self._prob, i) for i in range(self._prob.ndim - 1)] + [_dim(value, 0)]
            return rt.take_along_axis(self._prob, rt.expand(idx, lead), axis=-1)
        return rt.take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        """The same as ``probs(value)``."""
        return self.probs(value)

    def log_prob(self, value):
        """``log(probs(value))``."""
        return rt.log(self.probs(value))


class Bernoulli(Distribution):
    """The Bernoulli distribution with success probability ``probs``."""

    def __init__(self, probs, name=None):
        (p,) = params(probs)
        self._probs = p
        self._dtype = str(p.dtype)
        self.name = name or "Bernoulli"
        self.logits = rt.log(p) - rt.log1p(-p)
        super().__init__(tuple(p.shape))

    # ``probs`` is the parameter here (a Tensor), as Paddle's Bernoulli.probs
    @property
    def probs(self):
        """The success probability."""
        return self._probs

    @property
    def mean(self):
        """``probs``."""
        return self._probs

    @property
    def variance(self):
        """``probs (1 - probs)``."""
        return self._probs * (1.0 - self._probs)

    def sample(self, shape=()):
        """0/1 draws (in the dtype of ``probs``) of shape ``shape + batch_shape``."""
        u = rt.rand(self._draw_dims(shape_list(shape), self._probs), dtype=self._dtype)
        return stop_gradient(rt.cast(u < self._probs, self._dtype))

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed draws as logits: ``(logit(u) + logit(probs)) / temperature`` (apply ``sigmoid`` for values
        in (0, 1)), as Paddle's."""
        u = rt.rand(self._draw_dims(shape_list(shape), self._probs), dtype=self._dtype)
        return (rt.log(u) - rt.log1p(-u) + self.logits) / float(temperature)

    def log_prob(self, value):
        """``value log p + (1 - value) log(1 - p)``, from the logits without overflow."""
        value = to_param(value, self._dtype)
        lg = self.logits
        return -(rt.maximum(lg, rt.zeros_like(lg)) - lg * value + rt.log1p(rt.exp(-rt.abs(lg))))

    def prob(self, value):
        """``exp(log_prob(value))``."""
        return rt.exp(self.log_prob(value))

    def cdf(self, value):
        """0 below 0, ``1 - p`` on [0, 1), 1 from 1."""
        value = to_param(value, self._dtype)
        p = self._probs + rt.zeros_like(value)
        return rt.where(value < 0, rt.zeros_like(p), rt.where(value < 1, 1.0 - p, rt.ones_like(p)))

    def entropy(self):
        """``-(p log p + (1 - p) log(1 - p))``."""
        lg = self.logits
        return rt.maximum(lg, rt.zeros_like(lg)) - lg * self._probs + rt.log1p(rt.exp(-rt.abs(lg)))

    def kl_divergence(self, other):
        """``pa log(pa / pb) + (1 - pa) log((1 - pa) / (1 - pb))``."""
        pa, pb = self._probs, other._probs
        return pa * (rt.log(pa) - rt.log(pb)) + (1.0 - pa) * (rt.log1p(-pa) - rt.log1p(-pb))


class Geometric(Distribution):
    """The number of failures before the first success, success probability ``probs`` (support 0, 1, ...)."""

    def __init__(self, probs):
        (self.probs,) = params(probs)
        self._dtype = str(self.probs.dtype)
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self):
        """``1 / p - 1``."""
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        """``(1 / p - 1) / p``."""
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        """``sqrt(variance)``."""
        return rt.sqrt(self.variance)

    def pmf(self, k):
        """``(1 - p)^k p``."""
        return rt.pow(1.0 - self.probs, to_param(k, self._dtype)) * self.probs

    def log_pmf(self, k):
        """``log(pmf(k))``."""
        return rt.log(self.pmf(k))

    def log_prob(self, value):
        """The same as ``log_pmf(value)``."""
        return self.log_pmf(value)

    def prob(self, value):
        """The same as ``pmf(value)``."""
        return self.pmf(value)

    def sample(self, shape=()):
        """Draws without gradient."""
        return stop_gradient(self.rsample(shape))

    def rsample(self, shape=()):
        """``floor(log(u) / log(1 - p))``, ``u ~ U(0, 1)``."""
        u = rt.uniform(self._draw_dims(shape_list(shape), self.probs), dtype=self._dtype, min=1e-7, max=1.0)
        return rt.floor(rt.log(u) / rt.log1p(-self.probs))

    def entropy(self):
        """``-((1 - p) log(1 - p) + p log p) / p``."""
        p = self.probs
        return -((1.0 - p) * rt.log(1.0 - p) + p * rt.log(p)) / p

    def cdf(self, k):
        """``1 - (1 - p)^(k + 1)``."""
        return 1.0 - rt.pow(1.0 - self.probs, to_param(k, self._dtype) + 1.0)

    def kl_divergence(self, other):
        """``p log(p / q) + (1 - p) log((1 - p) / (1 - q))``."""
        p, q = self.probs, other.probs
        return p * rt.log(p / q) + (1.0 - p) * rt.log((1.0 - p) / (1.0 - q))


class Multinomial(Distribution):
    """Counts of ``total_count`` categorical draws with probabilities ``probs`` (normalised)."""

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError("input parameter total_count must be int type and grater than zero.")
        (p,) = params(probs)
        if p.ndim < 1:
            raise ValueError("Multinomial: probs must have at least one dim")
        self.total_count = total_count
        self.probs = p / rt.sum(p, axis=-1, keepdim=True)
        self._dtype = str(p.dtype)
        self._categorical = Categorical(rt.log(self.probs))
        super().__init__(tuple(p.shape[:-1]), tuple(p.shape[-1:]))

    @property
    def mean(self):
        """``total_count * probs``."""
        return self.probs * float(self.total_count)

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return float(self.total_count) * self.probs * (1.0 - self.probs)

    def sample(self, shape=()):
        """Counts of shape ``shape + batch_shape + [K]`` (dtype of ``probs``)."""
        draws = self._categorical.sample([self.total_count] + shape_list(shape))
        hot = rt.nn.functional.one_hot(draws, self.probs.shape[-1])
        return stop_gradient(rt.sum(rt.cast(hot, self._dtype), axis=0))

    def log_prob(self, value):
        """``lgamma(n + 1) - sum(lgamma(value + 1)) + sum(value log p)`` (0 log 0 taken as 0)."""
        value = to_param(value, self._dtype)
        logits = rt.log(self.probs) + rt.zeros_like(value)
        value = value + rt.zeros_like(logits)
        logits = rt.where(rt.logical_and(value == 0, rt.isinf(logits)), rt.zeros_like(logits), logits)
        return (_lgamma(rt.sum(value, axis=-1) + 1.0) - rt.sum(_lgamma(value + 1.0), axis=-1)
                + rt.sum(value * logits, axis=-1))

    def entropy(self):
        """The entropy, summed over each count's binomial marginal (as Paddle's)."""
        n = float(self.total_count)
        support = rt.reshape(rt.arange(1, self.total_count + 1, dtype=self._dtype),
                             [-1] + [1] * self.probs.ndim)
        lg = rt.log(self.probs) - rt.log1p(-self.probs)
        clip0 = (rt.clip(lg, min=0.0) + lg - rt.clip(lg, max=0.0)) / 2.0
        norm = n * clip0 + n * rt.log1p(rt.exp(-rt.abs(lg))) - _lgamma(rt.full([], n + 1.0, self._dtype))
        logpmf = support * lg - _lgamma(support + 1.0) - _lgamma(n - support + 1.0) - norm
        return (n * self._categorical.entropy() - _lgamma(rt.full([], n + 1.0, self._dtype))
                + rt.sum(rt.exp(logpmf) * _lgamma(support + 1.0), axis=[0, -1]))
