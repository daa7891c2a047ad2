"""Gamma, Beta, Dirichlet, Chi2 and StudentT (draws from the ``standard_gamma`` random op; as Paddle's, their
samples carry no gradient)."""
import numpy as np

import runtime as rt
from ..dispatch import apply
from ..ops.common import stop_gradient
from .distribution import Distribution, params, shape_list, to_param


def lgamma(x):
    """log|Gamma(x)| (the ``lgamma`` op)."""
    return apply("lgamma", x)


def digamma(x):
    """The digamma function (the ``digamma`` op)."""
    return apply("digamma", x)


def _gamma_draw(conc, dims):
    """Gamma(conc, 1) draws of shape ``dims`` (``conc`` broadcast to it)."""
    return apply("standard_gamma", rt.expand(conc, dims))


class Gamma(Distribution):
    """The gamma distribution with ``concentration`` (shape) and ``rate``."""

    def __init__(self, concentration, rate):
        self.concentration, self.rate = params(concentration, rate)
        self._dtype = str(self.concentration.dtype)
        like = self.concentration + rt.zeros_like(self.rate)
        self._like = like
        super().__init__(tuple(like.shape))

    @property
    def mean(self):
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def variance(self):
        """``concentration / rate^2``."""
        return self.concentration / rt.pow(self.rate, 2.0)

    def log_prob(self, value):
        """``c log r + (c - 1) log v - r v - lgamma(c)``."""
        v = to_param(value, self._dtype)
        c, r = self.concentration, self.rate
        return c * rt.log(r) + (c - 1.0) * rt.log(v) - r * v - lgamma(c)

    def entropy(self):
        """``c - log r + lgamma(c) + (1 - c) digamma(c)``."""
        c = self.concentration
        return c - rt.log(self.rate) + lgamma(c) + (1.0 - c) * digamma(c)

    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape`` (no gradient)."""
        return stop_gradient(self.rsample(shape))

    def rsample(self, shape=()):
        """``standard_gamma(c) / r``: the gradient reaches ``rate`` only (the gamma draw has none), as Paddle's."""
        dims = self._draw_dims(shape_list(shape), self._like)
        return _gamma_draw(self.concentration, dims) / self.rate

    def kl_divergence(self, other):
        """The closed form of KL(Gamma || Gamma)."""
        c1, r1, c2, r2 = self.concentration, self.rate, other.concentration, other.rate
        return (c2 * rt.log(r1 / r2) + lgamma(c2) - lgamma(c1) + (c1 - c2) * digamma(c1)
                + (r2 - r1) * (c1 / r1))


class Dirichlet(Distribution):
    """The Dirichlet distribution over the last dim of ``concentration``."""

    def __init__(self, concentration):
        (c,) = params(concentration)
        if c.ndim < 1:
            raise ValueError("Dirichlet: concentration must have at least one dim")
        self.concentration = c
        self._dtype = str(c.dtype)
        super().__init__(tuple(c.shape[:-1]), tuple(c.shape[-1:]))

    @property
    def mean(self):
        """``c / sum(c)``."""
        return self.concentration / rt.sum(self.concentration, axis=-1, keepdim=True)

    @property
    def variance(self):
        """``c (c0 - c) / (c0^2 (c0 + 1))``."""
        c = self.concentration
        c0 = rt.sum(c, axis=-1, keepdim=True)
        return c * (c0 - c) / (c0 * c0 * (c0 + 1.0))

    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        return self.rsample(shape)

    def rsample(self, shape=()):
        """Normalised gamma draws (no gradient, as Paddle's)."""
        dims = self._draw_dims(shape_list(shape), self.concentration)
        g = _gamma_draw(self.concentration, dims)
        return stop_gradient(g / rt.sum(g, axis=-1, keepdim=True))

    def log_prob(self, value):
        """``sum((c - 1) log v) + lgamma(sum c) - sum(lgamma(c))``."""
        v = to_param(value, self._dtype)
        c = self.concentration
        return (rt.sum(rt.log(v) * (c - 1.0), axis=-1) + lgamma(rt.sum(c, axis=-1))
                - rt.sum(lgamma(c), axis=-1))

    def entropy(self):
        """The closed-form entropy."""
        c = self.concentration
        k = float(c.shape[-1])
        c0 = rt.sum(c, axis=-1)
        return (rt.sum(lgamma(c), axis=-1) - lgamma(c0) - (k - c0) * digamma(c0)
                - rt.sum((c - 1.0) * digamma(c), axis=-1))

    def kl_divergence(self, other):
        """The closed form of KL(Dirichlet || Dirichlet)."""
        return _kl_dirichlet(self.concentration, other.concentration)


def _kl_dirichlet(a, b):
    a0, b0 = rt.sum(a, axis=-1), rt.sum(b, axis=-1)
    return (lgamma(a0) - rt.sum(lgamma(a), axis=-1) - lgamma(b0) + rt.sum(lgamma(b), axis=-1)
            + rt.sum((a - b) * (digamma(a) - rt.unsqueeze(digamma(a0), -1)), axis=-1))


class Beta(Distribution):
    """The beta distribution with ``alpha`` and ``beta`` (a two-category Dirichlet)."""

    def __init__(self, alpha, beta):
        a, b = params(alpha, beta)
        self.alpha = a + rt.zeros_like(b)
        self.beta = b + rt.zeros_like(a)
        self._dtype = str(a.dtype)
        self._dirichlet = Dirichlet(rt.stack([self.alpha, self.beta], -1))
        super().__init__(tuple(self.alpha.shape))

    @property
    def mean(self):
        """``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))``."""
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1.0))

    def log_prob(self, value):
        """The Dirichlet log density of ``[value, 1 - value]``."""
        v = to_param(value, self._dtype)
        return self._dirichlet.log_prob(rt.stack([v, 1.0 - v], -1))

    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape`` (no gradient); a last dim of size 1 is squeezed away, as
        Paddle's Beta.sample does."""
        out = self._dirichlet.sample(shape)[..., 0]
        return rt.squeeze(out, -1) if out.ndim and out.shape[-1] == 1 else out

    def rsample(self, shape=()):
        """The same as ``sample`` (no gradient, as Paddle's)."""
        return self.sample(shape)

    def entropy(self):
        """The Dirichlet entropy."""
        return self._dirichlet.entropy()

    def kl_divergence(self, other):
        """The closed form of KL(Beta || Beta)."""
        return _kl_dirichlet(self._dirichlet.concentration, other._dirichlet.concentration)


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    def __init__(self, df):
        (self.df,) = params(df)
        if isinstance(self.df, rt.Tensor) and not (self.df.numpy() > 0).all():  # checked eagerly, as Paddle's
            raise ValueError("The arg of `df` must be positive.")
        super().__init__(self.df * 0.5, rt.full_like(self.df, 0.5))


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, ``loc`` and ``scale``."""

    def __init__(self, df, loc, scale, name=None):
        df, loc, scale = params(df, loc, scale)
        if isinstance(df, rt.Tensor) and not (df.numpy() >= 0).all():  # checked eagerly, as Paddle's
            raise ValueError("Every element of input parameter `df` should be nonnegative.")
        zero = rt.zeros_like(df) + rt.zeros_like(loc) + rt.zeros_like(scale)
        self.df, self.loc, self.scale = df + zero, loc + zero, scale + zero
        self._dtype = str(df.dtype)
        self.name = name or "StudentT"
        self._chi2 = Chi2(self.df)
        super().__init__(tuple(zero.shape))

    @property
    def mean(self):
        """``loc`` for df > 1, NaN otherwise."""
        return rt.where(self.df > 1.0, self.loc, rt.full_like(self.loc, float("nan")))

    @property
    def variance(self):
        """``scale^2 df / (df - 2)`` for df > 2, inf for 1 < df <= 2, NaN otherwise."""
        df = stop_gradient(self.df)  # Paddle detaches df here
        var = rt.where(df > 2.0, rt.pow(self.scale, 2.0) * df / (df - 2.0), rt.full_like(df, float("nan")))
        return rt.where(rt.logical_and(df <= 2.0, df > 1.0), rt.full_like(df, float("inf")), var)

    def sample(self, shape=()):
        """``loc + scale * z / sqrt(chi2 / df)`` (no gradient)."""
        dims = self._draw_dims(shape_list(shape), self.df)
        z = rt.randn(dims, dtype=self._dtype)
        chi2 = self._chi2.sample(shape)
        return stop_gradient(self.loc + self.scale * z * rt.rsqrt(chi2 / self.df))

    def entropy(self):
        """The closed-form entropy."""
        df = self.df
        lbeta = lgamma(0.5 * df) + float(np.log(np.sqrt(np.pi))) - lgamma(0.5 * (df + 1.0))
        return (rt.log(self.scale) + 0.5 * (df + 1.0) * (digamma(0.5 * (df + 1.0)) - digamma(0.5 * df))
                + 0.5 * rt.log(df) + lbeta)

    def log_prob(self, value):
        """The log density."""
        y = (to_param(value, self._dtype) - self.loc) / self.scale
        z = (rt.log(self.scale) + 0.5 * rt.log(self.df) + 0.5 * float(np.log(np.pi)) + lgamma(0.5 * self.df)
             - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * rt.log1p(y * y / self.df) - z

    def prob(self, value):
        """``exp(log_prob(value))``."""
        return rt.exp(self.log_prob(value))
