"""The values Paddle's in-place random fills write (``x.uniform_(-a, a)``, ``x.normal_()``,
``x.exponential_()``, ``x.bernoulli_(p)``, ``x.cauchy_()``, ``x.geometric_(p)``, ``x.log_normal_()``,
``x.random_(0, n)``): fresh draws of x's shape and dtype, from runtime's generator (``rt.seed`` repeats
them), made of the uniform/normal/randint ops so they work in a Program too. ``runtime.inplace`` writes them."""
import math

import runtime as _rt

from .random_api import _shape_of


def _u(x):
    return _rt.rand(_shape_of(x), dtype=x.dtype)


def _uniform(x, min=0.0, max=1.0, seed=0, name=None):  # noqa: A002  (Paddle's argument names)
    return _rt.uniform(_shape_of(x), dtype=x.dtype, min=float(min), max=float(max))


def _normal(x, mean=0.0, std=1.0, name=None):
    return _rt.cast(_rt.scale(_rt.randn(_shape_of(x)), scale=float(std), bias=float(mean)), x.dtype)


def _exponential(x, lam=1.0, name=None):
    return _rt.scale(_rt.log1p(_rt.neg(_u(x))), scale=-1.0 / float(lam))


def _bernoulli(x, p=0.5, name=None):
    prob = p if hasattr(p, "dtype") else _rt.full_like(x, float(p))
    return _rt.cast(_rt.less_than(_u(x), _rt.cast(prob, x.dtype)), x.dtype)


def _cauchy(x, loc=0.0, scale=1.0, name=None):
    return _rt.scale(_rt.tan(_rt.scale(_u(x), scale=math.pi, bias=-math.pi / 2)), scale=float(scale), bias=float(loc))


def _geometric(x, probs, name=None):
    # the number of trials up to the first success: 1, 2, ...
    p = probs if hasattr(probs, "dtype") else _rt.full_like(x, float(probs))
    trials = _rt.divide(_rt.log1p(_rt.neg(_u(x))), _rt.log1p(_rt.neg(_rt.cast(p, x.dtype))))
    return _rt.floor(_rt.scale(trials, bias=1.0))


def _log_normal(x, mean=1.0, std=2.0, name=None):
    return _rt.exp(_normal(x, mean, std))


def _random(x, from_=0, to=None, generator=None):
    if to is None:
        kind = str(x.dtype)
        to = {"float16": 2 ** 11, "float32": 2 ** 24, "float64": 2 ** 53}.get(kind) or 2 ** (8 * {
            "int8": 1, "uint8": 1, "int16": 2, "int32": 4}.get(kind, 8) - 1) - 1
    return _rt.cast(_rt.randint(int(from_), int(to), _shape_of(x), dtype="int64"), x.dtype)


DRAWS = {"uniform_": _uniform, "normal_": _normal, "exponential_": _exponential, "bernoulli_": _bernoulli,
         "cauchy_": _cauchy, "geometric_": _geometric, "log_normal_": _log_normal, "random_": _random}
