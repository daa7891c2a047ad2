"""``rt.distribution`` (Paddle's ``paddle.distribution``): probability distributions with sampling
(fresh draws at every run of a converted function), reparameterised ``rsample``, ``log_prob``,
``entropy``, moments and KL divergences, all made of registered ops (eager and static alike)."""
from .continuous_bernoulli import ContinuousBernoulli
from .continuous import Cauchy, Exponential, Gumbel, Laplace, LogNormal, Normal, Uniform
from .discrete import Bernoulli, Categorical, Geometric, Multinomial
from .distribution import Distribution
from .gamma_family import Beta, Chi2, Dirichlet, Gamma, StudentT
from .kl import kl_divergence, register_kl
from .mvn import MultivariateNormal
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StickBreakingTransform,
                        TanhTransform, Transform)
from .transformed import Independent, TransformedDistribution

__all__ = ["Distribution", "Normal", "Uniform", "Categorical", "Bernoulli", "Beta", "Dirichlet", "Exponential",
           "Gamma", "Laplace", "LogNormal", "Multinomial", "MultivariateNormal", "Gumbel", "Geometric", "Cauchy",
           "Independent", "TransformedDistribution", "Chi2", "StudentT", "ContinuousBernoulli", "Transform", "ExpTransform", "AffineTransform",
           "SigmoidTransform", "TanhTransform", "PowerTransform", "AbsTransform", "ChainTransform",
           "IndependentTransform", "ReshapeTransform", "SoftmaxTransform", "StickBreakingTransform",
           "kl_divergence", "register_kl"]
