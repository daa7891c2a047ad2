"""``F.interpolate`` / ``F.upsample`` (Paddle's ``interp_v2`` modes) as a composite of registered ops:
nearest, linear, bilinear, trilinear and bicubic are gathers of source rows/columns and constant-weighted sums along
each axis in turn (so gradients, the static form and the ONNX export come from gather/multiply/add);
area is ``adaptive_avg_pool1d``/``2d`` to ``size``, as Paddle's is.  A channels-last input is
transposed to channels first and back.
"""
from collections.abc import Sequence

import numpy as np

from ..hints import IntOrPair, TensorLike
from ..registry import composite
from .common import as_tensor, constant
from .elementwise import _floating
from .math import add, multiply, subtract
from .nn_vision import _known
from .shape import gather, transpose


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


def _run_time_sources(n_in, n_out, scale_f, mode, align_corners, align_mode):
    """``_sources`` as ops, for sizes known only when the Program runs (int64 scalar Variables or
    ints): each step in the dtype ``_sources`` computes it in, so indices and weights are bitwise
    the arrays an eager call builds."""
    import runtime as rt  # noqa: PLC0415  (the public functions, read at call time)
    f32, f64 = "float32", "float64"
    n_in, n_out = rt.cast(as_tensor(n_in, "int64"), "int64"), rt.cast(as_tensor(n_out, "int64"), "int64")
    k = rt.arange(0, n_out, dtype=f32)
    if align_corners:  # (n_in - 1) / (n_out - 1) in float64, stored as float32
        ratio = rt.cast(rt.cast(n_in - 1, f64) / rt.cast(rt.maximum(n_out - 1, rt.ones_like(n_out)), f64), f32)
    elif scale_f:
        ratio = rt.full([], np.float32(1.0 / scale_f), f32)
    else:
        ratio = rt.cast(n_in, f32) / rt.cast(n_out, f32)
    ratio = rt.where(n_out <= 1, rt.zeros_like(ratio), ratio)
    last = n_in - 1
    if mode == "nearest":
        return rt.minimum(rt.cast(ratio * k, "int64"), last), None, None
    if mode == "bicubic":
        return _run_time_cubic_taps(last, k, ratio, align_corners)
    if align_corners or align_mode == 1:
        src = ratio * k
    else:
        src = rt.maximum(ratio * (k + np.float32(0.5)) - np.float32(0.5), rt.zeros_like(k))
    i0 = rt.minimum(rt.cast(src, "int64"), last)
    return i0, rt.minimum(i0 + 1, last), src - rt.cast(i0, f32)


def _run_time_cubic_taps(last, k, ratio, align_corners):
    """``_cubic_taps`` as ops (``last``: the input size - 1): the same float32 steps in the same order."""
    import runtime as rt  # noqa: PLC0415
    if align_corners:
        src = ratio * k
    else:  # in float64, stored as float32, as Paddle
        src = rt.cast(rt.cast(ratio, "float64") * (rt.cast(k, "float64") + 0.5) - 0.5, "float32")
    base = rt.floor(src)
    t = src - base
    a = -0.75

    def near(x):
        return (x * (a + 2.0) - (a + 3.0)) * x * x + 1.0

    def far(x):
        return ((x * a - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a

    weights = [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]
    start = rt.cast(base, "int64")
    idx = [rt.clip(start + (m - 1), 0, last) for m in range(4)]
    return idx, weights, None


def _resample_run_time(x, axis, n_out, scale_f, mode, align_corners, align_mode):
    """``_resample`` along an axis whose input or output size is known only when the Program runs."""
    import runtime as rt  # noqa: PLC0415
    i0, i1, w1 = _run_time_sources(rt.shape(x)[axis], n_out, scale_f, mode, align_corners, align_mode)
    if mode == "bicubic":  # summed in _resample's order
        out = None
        for idx, wt in zip(i0, i1):
            term = multiply(gather(x, idx, axis=axis),
                            rt.reshape(rt.cast(wt, str(x.dtype)), [-1] + [1] * (x.ndim - 1 - axis)))
            out = term if out is None else add(out, term)
        return out
    a = gather(x, i0, axis=axis)
    if i1 is None:
        return a
    w = rt.reshape(rt.cast(w1, str(x.dtype)), [-1] + [1] * (x.ndim - 1 - axis))
    return add(a, multiply(subtract(gather(x, i1, axis=axis), a), w))


def _run_time_sizes(x, size, scale_factor, recompute_scale_factor):
    """(output sizes as ints or int64 Variables, scale factors or None) when a spatial dim or ``size``
    is known only when the Program runs; None when everything is known (the usual path)."""
    import runtime as rt  # noqa: PLC0415
    from .shape_args import known_ints
    spatial = list(x.shape[2:])
    nd = len(spatial)
    parts = None
    if size is not None:
        parts = [size] if isinstance(size, TensorLike) else list(size) if isinstance(size, (list, tuple)) else None
        dynamic = parts is not None and any(isinstance(p, TensorLike) and known_ints(p) is None for p in parts)
    else:
        dynamic = False
    if not dynamic and all(d >= 0 for d in spatial):
        return None
    if size is not None:
        if parts is None:
            return [int(size)] * nd, [None] * nd
        outs = []
        for p in parts:
            if isinstance(p, TensorLike):
                known = known_ints(p)
                if known is not None:
                    outs.extend(known)
                else:
                    flat = rt.reshape(rt.cast(p, "int64"), [-1])
                    count = flat.shape[0]
                    if count < 0:
                        return "unknown"
                    outs.extend(flat[i] for i in range(count))
            else:
                outs.append(int(p))
        if len(outs) != nd:
            raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
        return outs, [None] * nd
    scales = [float(s) for s in _per_dim(scale_factor, nd, "scale_factor")]
    if any(s <= 0 for s in scales):
        raise ValueError(f"interpolate: scale_factor must be positive, got {scale_factor}")
    # int(n * s) of a Python int and float: a float64 product, truncated
    outs = [int(n * s) if n >= 0 else rt.cast(rt.cast(rt.shape(x)[2 + i], "float64") * s, "int64")
            for i, (n, s) in enumerate(zip(spatial, scales))]
    return outs, [None] * nd if recompute_scale_factor else scales


_RANKS = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,), "nearest": (4, 5)}
_LAYOUTS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_RANK_ERRORS = {"linear": "'linear' only support 3-D tensor.", "nearest": "'NEAREST' only support 4-D  or 5-D tensor.",
                "bilinear": "'bilinear' and 'bicubic' only support 4-D tensor.",
                "bicubic": "'bilinear' and 'bicubic' only support 4-D tensor.",
                "trilinear": "'trilinear'only support 5-D tensor."}


def _one_size(size):
    if len(size) != 1:
        raise ValueError(f"interpolate: a 3-D input takes one output size, got {list(size)}")
    return int(size[0])


def _per_dim(v, nd, what):
    v = [v] * nd if isinstance(v, (int, float, np.integer, np.floating)) else list(v)
    if len(v) != nd:
        raise ValueError(f"interpolate: {what} must have {nd} entries for a {nd + 2}-D input, got {v}")
    return v


def _size_ints(size):
    """``size`` as Python ints: a Tensor (or list of 1-element Tensors) is read now, eagerly, or, building a
    Program, when its values follow from known dims (``paddle.shape(x)[2:]``)."""
    from .shape_args import known_ints
    parts = [size] if isinstance(size, TensorLike) else size
    if not isinstance(parts, (list, tuple)) or not any(isinstance(p, TensorLike) for p in parts):
        return size
    out = []
    for p in parts:
        values = known_ints(p) if isinstance(p, TensorLike) else [p]
        if values is None:
            raise NotImplementedError(f"interpolate: the size {p.name if hasattr(p, 'name') else p} is only known "
                                      "when the Program runs; resizing needs it while the Program is built (give "
                                      "the input known spatial dims, or pass ints)")
        out.extend(values)
    return out if isinstance(size, (list, tuple)) or len(out) != 1 else out[0]


def _out_sizes(spatial, size, scale_factor, recompute_scale_factor):
    """(output sizes, per-dim scale factors or None) from ``size`` or ``scale_factor``, as Paddle reads them."""
    nd = len(spatial)
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != nd:
            raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
        sizes = _per_dim(_size_ints(size), nd, "size")
        if any(not isinstance(s, (int, np.integer)) for s in sizes):
            raise TypeError(f"interpolate: size must hold ints or int Tensors, got {size!r}")
        outs, scales = [int(s) for s in sizes], [None] * nd
    else:
        scales = [float(s) for s in _per_dim(scale_factor, nd, "scale_factor")]
        if any(s <= 0 for s in scales):
            raise ValueError(f"interpolate: scale_factor must be positive, got {scale_factor}")
        outs = [int(n * s) for n, s in zip(spatial, scales)]
        if recompute_scale_factor:
            scales = [None] * nd
    if any(o <= 0 for o in outs):
        raise ValueError(f"interpolate: the output size {outs} must be positive")
    return outs, scales


@composite("interpolate", functional=["interpolate", "upsample"], float16_in_float32=True)
def interpolate(x: TensorLike, size: IntOrPair | None = None, scale_factor: float | Sequence[float] | None = None,
                mode: str = "nearest", align_corners: bool = False,
                align_mode: int = 0, data_format: str | None = None,
                recompute_scale_factor: bool | None = None,
                antialias: bool = False, name: str | None = None) -> TensorLike:
    """Resize to ``size`` or by ``scale_factor`` with ``mode`` "linear" (3-D input), "bilinear"/"bicubic"
    (4-D), "trilinear" (5-D), "nearest" (4-D, 5-D) with Paddle's index and weight rules (``align_corners``
    and ``align_mode`` included), or "area" (Paddle's: adaptive average pooling to ``size``).
    ``data_format`` defaults to channels first by rank (NCW, NCHW, NCDHW); NWC/NHWC/NDHWC are channels last."""
    rank = len(x.shape)
    if rank not in _LAYOUTS:
        raise ValueError(f"The dimension of the input tensor should only be 3-D, 4-D or 5-D, but the received "
                         f"dimension is {rank}.")
    mode = mode.lower()
    if mode not in ("linear", "bilinear", "trilinear", "nearest", "bicubic", "area"):
        raise ValueError(f"interpolate: mode {mode!r} is not one of 'area', 'linear', 'bilinear', 'trilinear', "
                         "'bicubic' or 'nearest'")
    if mode == "area":  # as Paddle: the average over each output cell's bins (channels first); only a size
        if size is None:
            raise ValueError("interpolate: mode 'area' needs size (Paddle: output size can not be None in AREA mode)")
        from .composites_extra import adaptive_avg_pool2d
        from .nn_vision import adaptive_avg_pool1d
        size = _size_ints(size)  # the pooling bins need the sizes while the Program is built
        if rank == 3:  # NCL
            return adaptive_avg_pool1d(x, size if isinstance(size, int) else _one_size(size))
        if rank == 5:  # NCDHW
            from .nn_pool_adaptive import adaptive_avg_pool3d
            return adaptive_avg_pool3d(x, size)
        return adaptive_avg_pool2d(x, size)
    if rank not in _RANKS[mode]:
        raise ValueError(_RANK_ERRORS[mode])
    if mode == "nearest" and align_corners:
        raise ValueError("interpolate: align_corners=True is only valid for the linear modes, not 'nearest'")
    if align_mode not in (0, 1):
        raise ValueError(f"interpolate: align_mode must be 0 or 1, got {align_mode}")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    first, last = _LAYOUTS[rank]
    data_format = first if data_format is None else data_format.upper()
    if data_format not in (first, last):
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received but only `{first}` or "
                         f"`{last}` supported for {rank}-D input.")
    channel_last = data_format == last
    if channel_last:
        x = transpose(x, [0, rank - 1] + list(range(1, rank - 1)))
    x = _floating(x)
    run_time = _run_time_sizes(x, size, scale_factor, recompute_scale_factor)
    if run_time is not None and run_time != "unknown":
        outs, scales = run_time
        for axis in ([3, 2] if mode == "bicubic" else range(2, rank)):  # Paddle's bicubic: width first
            if isinstance(outs[axis - 2], int) and outs[axis - 2] == x.shape[axis]:
                continue  # a known dim kept at its size: Paddle copies it
            x = _resample_run_time(x, axis, outs[axis - 2], scales[axis - 2], mode, align_corners, align_mode)
        return transpose(x, [0] + list(range(2, rank)) + [1]) if channel_last else x
    _known(x, range(2, rank), "interpolate")
    outs, scales = _out_sizes(list(x.shape[2:]), size, scale_factor, recompute_scale_factor)
    if outs != list(x.shape[2:]):  # Paddle copies the input when no size changes, whatever the scale_factor
        axes = [3, 2] if mode == "bicubic" else range(2, rank)  # Paddle's bicubic goes along the width first
        for axis in axes:
            x = _resample(x, axis, outs[axis - 2], scales[axis - 2], mode, align_corners, align_mode)
    if channel_last:
        x = transpose(x, [0] + list(range(2, rank)) + [1])
    return x
