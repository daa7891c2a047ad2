"""Paddle's other random functions: ``poisson``, ``binomial`` and ``standard_gamma`` draw from runtime's
generator with their own ops (so ``rt.seed`` repeats them, eagerly and in a Program); ``bernoulli`` and
``multinomial`` are composites of the uniform draw (``rand_like``, ``log_normal``...: runtime/random_api.py). No gradient flows through a draw (Paddle's samplers have none either).
"""
import numpy as np

import runtime as _rt

from ..dispatch import apply
from ..hints import TensorLike
from ..random import generator
from ..registry import RANDOM, Meta, def_op, composite
from .common import broadcast_shape, same_as
from .elementwise import _floating


def _poisson_kernel(x):
    return generator().poisson(x).astype(x.dtype)


def _gamma_kernel(x):
    return generator().standard_gamma(x).astype(x.dtype)


def _binomial_kernel(count, prob):
    return generator().binomial(count.astype(np.int64), prob).astype(np.int64)


def_op("poisson", ["X"], ["Out"], kernel=_poisson_kernel, infer=same_as, random=True, no_onnx=RANDOM,
       api=["poisson"])
def_op("standard_gamma", ["X"], ["Out"], kernel=_gamma_kernel, infer=same_as, random=True, no_onnx=RANDOM,
       api=["standard_gamma"])
def_op("binomial", ["Count", "Prob"], ["Out"], kernel=_binomial_kernel,
       infer=lambda c, p: Meta(broadcast_shape(c.shape, p.shape), "int64"), random=True, no_onnx=RANDOM,
       api=["binomial"])


def poisson(x: TensorLike, name: str | None = None) -> TensorLike:
    """A Poisson draw with rate ``x`` per element (x's float dtype)."""
    return apply("poisson", _floating(x))


def standard_gamma(x: TensorLike, name: str | None = None) -> TensorLike:
    """A Gamma(``x``, 1) draw per element."""
    return apply("standard_gamma", _floating(x))


def binomial(count: TensorLike, prob: TensorLike, name: str | None = None) -> TensorLike:
    """The number of successes in ``count`` trials of probability ``prob`` (int64)."""
    return apply("binomial", count, prob)


def _shape_of(x):
    return _rt.shape(x) if any(d < 0 for d in x.shape) else list(x.shape)


@composite("bernoulli", api=["bernoulli"], methods=["bernoulli"])
def bernoulli(x: TensorLike, p: float | None = None, name: str | None = None) -> TensorLike:
    """1 with probability ``x`` (or ``p`` for every element, when given), else 0, in x's dtype."""
    x = _floating(x)
    u = _rt.rand(_shape_of(x), dtype=x.dtype)
    prob = x if p is None else _rt.full_like(x, float(p))
    return _rt.cast(_rt.less_than(u, prob), x.dtype)


@composite("multinomial", api=["multinomial"], methods=["multinomial"])
def multinomial(x: TensorLike, num_samples: int = 1, replacement: bool = False,
                name: str | None = None) -> TensorLike:
    """``num_samples`` category indices per row drawn with probabilities proportional to ``x`` (1-D or 2-D):
    by inverse CDF with replacement, by the Gumbel top-k trick without (distinct indices)."""
    if x.ndim not in (1, 2):
        raise ValueError(f"multinomial: x must be 1-D or 2-D, got shape {list(x.shape)}")
    x = _floating(x)
    n = x.shape[-1]
    if n < 0:
        raise ValueError("multinomial: the number of categories (x's last dim) must be known when the Program "
                         "is built; give it in the input_spec")
    if not replacement and num_samples > n:
        raise ValueError(f"multinomial: cannot draw {num_samples} distinct samples from {n} categories "
                         "without replacement")
    lead = list(x.shape[:-1])
    if any(d < 0 for d in lead):  # rows known when the Program runs (a None batch dim): read at run time
        dims = _rt.shape(x)
        lead = [dims[i] if d < 0 else d for i, d in enumerate(lead)]
    if replacement:
        cdf = _rt.cumsum(x, axis=-1)
        total = _rt.slice(cdf, [x.ndim - 1], [n - 1], [n])
        u = _rt.multiply(_rt.rand(lead + [int(num_samples)], dtype=x.dtype), total)
        idx = _rt.searchsorted(cdf, u, right=True)
        return _rt.minimum(idx, _rt.full_like(idx, n - 1))
    u = _rt.rand(lead + [n], dtype=x.dtype)
    # argmax of log(u) / p over the categories left: each a draw in proportion to p
    positive = _rt.greater_than(x, _rt.zeros_like(x))
    keys = _rt.where(positive, _rt.divide(_rt.log(u), _rt.where(positive, x, _rt.ones_like(x))),
                     _rt.full_like(x, float("-inf")))
    return _rt.topk(keys, int(num_samples), axis=-1)[1]
