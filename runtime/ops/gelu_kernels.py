"""gelu's kernels (exact erf form and tanh approximation) and the erf they use: numpy has no erf
and scipy is not a dependency. float32 exact gelu is ``gelu_erf32`` (the registry's and the executor's
shared bits, gelu_erf.py); float64 takes math.erf per element.
"""
import math

import numpy as np

from .gelu_erf import gelu_erf32


_SQRT_2_PI = float(np.sqrt(2 / np.pi))  # a Python float keeps float32 inputs float32


_ERF64 = np.frompyfunc(math.erf, 1, 1)


def _erf(x):
    """erf to ~1e-7 (Abramowitz & Stegun 7.1.26): numpy has no erf and scipy is not a dependency. That
    is float32's precision; float64 takes math.erf per element (slower, but 1e-7 would be a silent loss)."""
    if x.dtype == np.float64:
        return _ERF64(x).astype(np.float64) if x.ndim else np.float64(math.erf(x))
    s = np.sign(x)
    a = np.abs(x)
    t = 1 / (1 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return s * (1 - poly * np.exp(-a * a))


def gelu_kernel(x, approximate=False):
    """``x * Phi(x)`` (``approximate``: the tanh form), in ``x``'s dtype."""
    if approximate:
        return 0.5 * x * (1 + np.tanh(_SQRT_2_PI * (x + 0.044715 * x ** 3)))
    if x.dtype == np.float32:  # relu(x) - |x| Q: no cancellation in the negative tail (gelu_erf.py)
        return gelu_erf32(x)
    return (0.5 * x * (1 + _erf(x / np.sqrt(2).astype(x.dtype)))).astype(x.dtype)


def gelu_grad_kernel(x, g, approximate=False):
    """``g * d gelu / dx`` at ``x``, in ``g``'s dtype."""
    if approximate:
        inner = _SQRT_2_PI * (x + 0.044715 * x ** 3)
        t = np.tanh(inner)
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
        return (g * d).astype(g.dtype)
    cdf = 0.5 * (1 + _erf(x / np.sqrt(2).astype(x.dtype)))
    pdf = np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi).astype(x.dtype)
    return (g * (cdf + x * pdf)).astype(g.dtype)
