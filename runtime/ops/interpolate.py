"""``F.interpolate`` / ``F.upsample`` (Paddle's ``interp_v2`` modes) as a composite of registered ops:
nearest, bilinear and bicubic are gathers of source rows/columns and constant-weighted sums along
each axis (so gradients, the static form and the ONNX export come from gather/multiply/add); area
is ``adaptive_avg_pool2d`` to ``size``, as Paddle's is.
"""
from collections.abc import Sequence

import numpy as np

from ..hints import IntOrPair, TensorLike
from ..registry import composite
from .common import as_tensor, constant
from .elementwise import _floating
from .math import add, multiply, subtract
from .nn_vision import _known, _nchw, _rank, _two
from .shape import gather


# -- interpolate -------------------------------------------------------------------------------------
def _sources(n_in, n_out, scale_f, mode, align_corners, align_mode):
    """(index0, index1, weight1) per output position along one axis, as Paddle's interp_v2 kernels
    compute them: in float32, with the ratio 0 for a single output position."""
    f32 = np.float32
    k = np.arange(n_out, dtype=f32)
    if n_out <= 1:
        ratio = f32(0.0)
    elif align_corners:
        ratio = f32((n_in - 1) / (n_out - 1))
    else:
        ratio = f32(1.0 / scale_f) if scale_f else f32(f32(n_in) / f32(n_out))
    if mode == "nearest":
        i0 = np.minimum((ratio * k).astype(np.int64), n_in - 1)
        return i0, None, None
    if mode == "bicubic":
        return _cubic_taps(n_in, k, ratio, align_corners)
    if align_corners or align_mode == 1:
        src = ratio * k
    else:
        src = np.maximum(ratio * (k + f32(0.5)) - f32(0.5), f32(0.0))
    i0 = np.minimum(src.astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    return i0, i1, src - i0.astype(f32)


def _cubic_taps(n_in, k, ratio, align_corners):
    """([four source indices], [four float32 weights]) per output position: Paddle's bicubic_interp_v2
    (Keys' cubic with A = -0.75, source positions clamped at the edges, no clamp of the centre)."""
    f32, a = np.float32, np.float32(-0.75)
    # Paddle computes `ratio * (k + 0.5) - 0.5` in double and stores it as float
    src = ratio * k if align_corners else (np.float64(ratio) * (k.astype(np.float64) + 0.5) - 0.5).astype(f32)
    base = np.floor(src)
    t = (src - base).astype(f32)

    def near(x):  # |x| <= 1
        return ((a + f32(2)) * x - (a + f32(3))) * x * x + f32(1)

    def far(x):  # 1 < |x| < 2
        return ((a * x - f32(5) * a) * x + f32(8) * a) * x - f32(4) * a

    weights = [far(t + f32(1)), near(t), near(f32(1) - t), far(f32(2) - t)]
    idx = [np.clip(base.astype(np.int64) - 1 + m, 0, n_in - 1) for m in range(4)]
    return idx, weights, None


def _resample(x, axis, n_out, scale_f, mode, align_corners, align_mode):
    n_in = x.shape[axis]
    if n_in == n_out and (align_corners or not scale_f):  # the ratio is exactly 1: every row is its own
        return x
    i0, i1, w1 = _sources(n_in, n_out, scale_f, mode, align_corners, align_mode)
    if mode == "bicubic":  # x0 * w0 + x1 * w1 + x2 * w2 + x3 * w3, summed in that order as Paddle does
        out = None
        for idx, wt in zip(i0, i1):
            term = multiply(gather(x, as_tensor(idx, "int64"), axis=axis),
                            constant(wt.reshape([-1] + [1] * (x.ndim - 1 - axis)), str(x.dtype)))
            out = term if out is None else add(out, term)
        return out
    a = gather(x, as_tensor(i0, "int64"), axis=axis)
    if i1 is None:
        return a
    b = gather(x, as_tensor(i1, "int64"), axis=axis)
    w = w1.reshape([-1] + [1] * (x.ndim - 1 - axis))
    return add(a, multiply(subtract(b, a), constant(w, str(x.dtype))))


def _one_size(size):
    if len(size) != 1:
        raise ValueError(f"interpolate: a 3-D input takes one output size, got {list(size)}")
    return int(size[0])


@composite("interpolate", functional=["interpolate", "upsample"])
def interpolate(x: TensorLike, size: IntOrPair | None = None, scale_factor: float | Sequence[float] | None = None,
                mode: str = "nearest", align_corners: bool = False,
                align_mode: int = 0, data_format: str | None = None,
                recompute_scale_factor: bool | None = None,
                antialias: bool = False, name: str | None = None) -> TensorLike:
    """Resize an NCHW input to ``size`` [h, w] or by ``scale_factor`` with ``mode`` "nearest", "bilinear",
    "bicubic" (Paddle's index and weight rules, ``align_corners`` and ``align_mode`` included) or "area"
    (Paddle's: ``adaptive_avg_pool2d`` to ``size``)."""
    mode = mode.lower()
    if mode not in ("nearest", "bilinear", "bicubic", "area"):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported ('nearest', 'bilinear', "
                                  "'bicubic' and 'area' are)")
    if mode == "area":  # as Paddle: the average over each output cell's bins; only a size
        if size is None:
            raise ValueError("interpolate: mode 'area' needs size (Paddle: output size can not be None in AREA mode)")
        from .composites_extra import adaptive_avg_pool2d
        from .nn_vision import adaptive_avg_pool1d
        if len(x.shape) == 3:  # NCL
            return adaptive_avg_pool1d(x, size if isinstance(size, int) else _one_size(size))
        _rank(x, 4, "interpolate(mode='area')")
        return adaptive_avg_pool2d(x, size)
    if mode == "nearest" and align_corners:
        raise ValueError("interpolate: align_corners=True is only valid for the linear modes, not 'nearest'")
    if align_mode not in (0, 1):
        raise ValueError(f"interpolate: align_mode must be 0 or 1, got {align_mode}")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    _nchw(data_format, "interpolate")
    _rank(x, 4, f"interpolate(mode={mode!r})")
    _known(x, (2, 3), "interpolate")
    x = _floating(x)
    h, w = x.shape[2], x.shape[3]
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if size is not None:
        if any(not isinstance(s, (int, np.integer)) for s in _two(size, "size")):
            raise NotImplementedError("interpolate: size must be Python ints (a Tensor size is not supported)")
        oh, ow = (int(s) for s in _two(size, "size"))
        sh = sw = None
    else:
        sh, sw = (float(s) for s in _two(scale_factor, "scale_factor"))
        if sh <= 0 or sw <= 0:
            raise ValueError(f"interpolate: scale_factor must be positive, got {scale_factor}")
        oh, ow = int(h * sh), int(w * sw)
        if recompute_scale_factor:
            sh = sw = None
    if oh <= 0 or ow <= 0:
        raise ValueError(f"interpolate: the output size {[oh, ow]} must be positive")
    if (oh, ow) == (h, w):  # Paddle copies the input when neither size changes, whatever the scale_factor
        return x
    if mode == "bicubic":  # Paddle interpolates along the width first
        x = _resample(x, 3, ow, sw, mode, align_corners, align_mode)
        return _resample(x, 2, oh, sh, mode, align_corners, align_mode)
    x = _resample(x, 2, oh, sh, mode, align_corners, align_mode)
    return _resample(x, 3, ow, sw, mode, align_corners, align_mode)
