"""The special functions and the gamma sampler ``rt.distribution`` needs: ``dist_lgamma`` (log|Gamma(x)|),
``dist_digamma`` (its derivative), ``dist_trigamma`` (the digamma's derivative) and the random op
``dist_standard_gamma``. They carry no public name (``rt.distribution`` is their user), so they
cannot collide with top-level ``lgamma``/``digamma``/``standard_gamma`` functions.

digamma and trigamma: the recurrence up to x >= 10 (with the reflection formula below 0.5), then
their asymptotic series; about 1e-13 relative error in float64.
"""
import math

import numpy as np

from ..dispatch import apply
from ..random import generator
from ..registry import RANDOM, def_op
from .common import same_as

_NO_ONNX = "no ONNX op computes this special function"


def _lgamma_kernel(x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x).astype(x.dtype)


def _shifted(x, acc_fn):
    """x moved up to >= 10 by the recurrence: (shifted x, the accumulated terms)."""
    acc = np.zeros_like(x)
    while (x < 10).any():  # at most 10 steps: x >= 0.5 here (the reflection took the rest)
        low = x < 10
        acc = acc + np.where(low, acc_fn(np.where(low, x, 1.0)), 0.0)
        x = np.where(low, x + 1, x)
    return x, acc


def _digamma64(x):
    refl = x < 0.5
    xr = np.where(refl, 1.0 - x, x)
    z, acc = _shifted(xr, lambda v: -1.0 / v)
    f = 1.0 / (z * z)
    psi = np.log(z) - 0.5 / z - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132)))) + acc
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(refl, psi - np.pi / np.tan(np.pi * x), psi)


def _trigamma64(x):
    refl = x < 0.5
    xr = np.where(refl, 1.0 - x, x)
    z, acc = _shifted(xr, lambda v: 1.0 / (v * v))
    iz = 1.0 / z
    i2 = iz * iz
    t = iz + i2 / 2 + iz * i2 * (1 / 6 - i2 * (1 / 30 - i2 * (1 / 42 - i2 / 30))) + acc
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(refl, -t + (np.pi / np.sin(np.pi * x)) ** 2, t)


def _digamma_kernel(x):
    return _digamma64(x.astype(np.float64)).astype(x.dtype)


def _trigamma_kernel(x):
    return _trigamma64(x.astype(np.float64)).astype(x.dtype)


def_op("dist_lgamma", ["X"], ["Out"], kernel=_lgamma_kernel, infer=same_as, no_onnx=_NO_ONNX,
       grad=lambda ctx: [apply("multiply", ctx.out_grads[0], apply("dist_digamma", ctx.inputs[0]))],
       doc="log|Gamma(x)| elementwise.")
def_op("dist_digamma", ["X"], ["Out"], kernel=_digamma_kernel, infer=same_as, no_onnx=_NO_ONNX,
       grad=lambda ctx: [apply("multiply", ctx.out_grads[0], apply("dist_trigamma", ctx.inputs[0]))],
       doc="The digamma function (d/dx lgamma) elementwise.")
def_op("dist_trigamma", ["X"], ["Out"], kernel=_trigamma_kernel, infer=same_as, no_onnx=_NO_ONNX,
       doc="The trigamma function (d/dx digamma) elementwise.")


def _standard_gamma_kernel(x):
    return generator().standard_gamma(x.astype(np.float64)).astype(x.dtype)


def_op("dist_standard_gamma", ["X"], ["Out"], kernel=_standard_gamma_kernel, infer=same_as, random=True,
       no_onnx=RANDOM, doc="One Gamma(x, 1) draw per element of x (no gradient, as Paddle's standard_gamma).")
