"""``kl_divergence(p, q)`` and ``register_kl(type_p, type_q)``: KL rules looked up by the two types (the
most specific registered pair along both MROs), with the closed forms of the common pairs."""
import runtime as rt
from .continuous_bernoulli import ContinuousBernoulli
from .continuous import Cauchy, Exponential, Gumbel, Laplace, LogNormal, Normal, Uniform
from .discrete import Bernoulli, Categorical, Geometric
from .gamma_family import Beta, Dirichlet, Gamma
from .mvn import MultivariateNormal
from .transformed import Independent, _sum_rightmost

_KL = {}


def register_kl(cls_p, cls_q):
    """Decorator: ``fn(p, q)`` computes KL(p || q) for ``p`` a ``cls_p`` and ``q`` a ``cls_q``."""
    def register(fn):
        _KL[cls_p, cls_q] = fn
        return fn
    return register


def _lookup(tp, tq):
    best = None
    for i, a in enumerate(tp.__mro__):
        for j, b in enumerate(tq.__mro__):
            if (a, b) in _KL and (best is None or i + j < best[0]):
                best = (i + j, _KL[a, b])
    return best[1] if best else None


def kl_divergence(p, q):
    """KL(p || q) by the rule registered for their types; NotImplementedError when there is none."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"kl_divergence: no KL rule is registered for {type(p).__name__} and "
                                  f"{type(q).__name__} (register one with register_kl)")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal(p, q):
    ratio = (p.scale / q.scale) ** 2
    t = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (ratio + t - 1.0 - rt.log(ratio))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal(p, q):
    return _kl_normal(p._base, q._base)


@register_kl(Uniform, Uniform)
def _kl_uniform(p, q):
    return rt.log((q.high - q.low) / (p.high - p.low))


def _own_rule(p, q):
    return p.kl_divergence(q)


# the pairs whose closed form is the distribution's own kl_divergence method
for _cls in (Categorical, Bernoulli, Geometric, Beta, Dirichlet, Gamma, ContinuousBernoulli, MultivariateNormal):
    register_kl(_cls, _cls)(_own_rule)


@register_kl(Exponential, Exponential)
def _kl_exponential(p, q):
    ratio = q.rate / p.rate
    return -rt.log(ratio) + ratio - 1.0


@register_kl(Laplace, Laplace)
def _kl_laplace(p, q):
    d = rt.abs(p.loc - q.loc)
    return rt.log(q.scale / p.scale) + d / q.scale + p.scale / q.scale * rt.exp(-d / p.scale) - 1.0


@register_kl(Cauchy, Cauchy)
def _kl_cauchy(p, q):
    num = (p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2
    return rt.log(num) - rt.log(4.0 * p.scale * q.scale)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -rt.log(ct1) - ct2 + ct3
    t2 = ct1 * 0.5772156649015329
    t3 = rt.exp(ct2 - ct3 + _lgamma(ct1 + 1.0))
    return t1 + t2 + t3 - (1.0 + 0.5772156649015329)


def _lgamma(x):
    from ..dispatch import apply  # noqa: PLC0415
    return apply("lgamma", x)


@register_kl(Independent, Independent)
def _kl_independent(p, q):
    if p._reinterpreted_batch_rank != q._reinterpreted_batch_rank:
        raise NotImplementedError("kl_divergence: Independent distributions of different reinterpreted ranks")
    return _sum_rightmost(kl_divergence(p._base, q._base), p._reinterpreted_batch_rank)

