"""Paddle's ``F.fold``, ``F.affine_grid`` and ``F.grid_sample`` as composites of registered ops: their
gradients, static form and ONNX export are those of the ops they are made of.

``fold`` (col2im) is the adjoint of ``unfold``: ``conv2d_transpose`` with the same one-hot filters.
``grid_sample`` reads the four corners (bilinear) or the nearest entry of each sampling point with
``take_along_axis``; the sampling weights come from the grid by ops, so the grid's gradient is theirs
(zero where border clipping holds a coordinate, as Paddle's).
"""
import itertools

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .broadcast import expand
from .common import cast, constant
from .composites_extra import _dim
from .elementwise import _floating, floor
from .elementwise import abs as abs_
from .elementwise import clip
from .elementwise import round as round_
from .indexing import getitem
from .logic import greater_equal, less_equal, logical_and, where
from .math import add, matmul, multiply, scale, subtract
from .shape import reshape, unsqueeze
from .sort import take_along_axis


def _pair(v, what):
    v = [int(v), int(v)] if isinstance(v, int) else [int(d) for d in v]
    if len(v) != 2:
        raise ValueError(f"fold: {what} must be an int or 2 ints, got {v}")
    return v


@composite("fold", functional=["fold"])
def fold(x: TensorLike, output_sizes: int | list[int], kernel_sizes: int | list[int], strides: int | list[int] = 1,
         paddings: int | list[int] = 0, dilations: int | list[int] = 1, name: str | None = None) -> TensorLike:
    """Sliding blocks summed back into an image (col2im): [N, C * kh * kw, L] -> [N, C, H, W], the adjoint of
    ``F.unfold``. ``paddings`` is an int, [h, w] or [top, left, bottom, right] with top == bottom and
    left == right (Paddle's kernel pads each dim by one amount)."""
    if x.ndim != 3:
        raise ValueError(f"fold: expects a 3-D input [N, C * kh * kw, L], got shape {list(x.shape)}")
    x = _floating(x)
    out_h, out_w = _pair(output_sizes, "output_sizes")
    kh, kw = _pair(kernel_sizes, "kernel_sizes")
    sh, sw = _pair(strides, "strides")
    dh, dw = _pair(dilations, "dilations")
    p = [paddings] * 2 if isinstance(paddings, int) else [int(v) for v in paddings]
    if len(p) == 4 and p[0] == p[2] and p[1] == p[3]:
        p = p[:2]
    if len(p) != 2:
        raise ValueError(f"fold: paddings must be an int, [h, w] or [top, left, bottom, right] with equal "
                         f"top/bottom and left/right (Paddle's kernel pads each dim by one amount), got {paddings}")
    ph, pw = p
    ckk, blocks = x.shape[1], x.shape[2]
    if ckk < 0:
        raise ValueError("fold: the input's dim 1 (C * kh * kw) must be known")
    if ckk % (kh * kw):
        raise ValueError(f"fold: expected size of input's dimension 1 to be divisible by the product of "
                         f"kernel_size, but got input.size(1)={ckk} and kernel_size=({kh}, {kw})")
    bh = (out_h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    bw = (out_w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if bh <= 0 or bw <= 0 or (blocks >= 0 and bh * bw != blocks):
        raise ValueError(f"fold: output_sizes ({out_h}, {out_w}), kernel_sizes ({kh}, {kw}), strides ({sh}, {sw}), "
                         f"paddings ({ph}, {pw}), dilations ({dh}, {dw}) give {bh} * {bw} blocks, but the input "
                         f"has {blocks}")
    c = ckk // (kh * kw)
    eye = np.eye(kh * kw, dtype=np.float64).reshape(kh * kw, 1, kh, kw)
    filt = constant(np.tile(eye, (c, 1, 1, 1)), str(x.dtype))
    cols = reshape(x, [_dim(x, 0), ckk, bh, bw])
    # conv2d_transpose gives the smallest image these blocks cover; output_padding adds the rows/columns
    # past the last block (less than a stride) that the blocks never reach
    span_h = (bh - 1) * sh - 2 * ph + dh * (kh - 1) + 1
    span_w = (bw - 1) * sw - 2 * pw + dw * (kw - 1) + 1
    return apply("conv2d_transpose", cols, filt, strides=[sh, sw], paddings=[ph, ph, pw, pw],
                 output_padding=[out_h - span_h, out_w - span_w], dilations=[dh, dw], groups=c)


# -- affine_grid ------------------------------------------------------------------------------------
def _base_coords(n, align_corners):
    """Paddle's normalized sample positions along a dim of size n."""
    if n == 1:
        return np.zeros(1)
    lin = np.linspace(-1.0, 1.0, n)
    return lin if align_corners else lin * (n - 1) / n


@composite("affine_grid", functional=["affine_grid"], float16_in_float32=True)
def affine_grid(theta: TensorLike, out_shape: list[int] | TensorLike, align_corners: bool = True,
                name: str | None = None) -> TensorLike:
    """Sampling grids of affine maps: ``theta`` [N, 2, 3] and ``out_shape`` [N, C, H, W] give [N, H, W, 2]
    (x, y); ``theta`` [N, 3, 4] and [N, C, D, H, W] give [N, D, H, W, 3]."""
    if hasattr(out_shape, "numpy"):
        if isinstance(out_shape, _symbolic_types()):
            raise ValueError("affine_grid: out_shape must be known while the Program is built (a list or an "
                             "eager Tensor)")
        out_shape = out_shape.numpy().tolist()
    out_shape = list(out_shape)
    nd = len(out_shape) - 2
    if nd not in (2, 3) or theta.ndim != 3 or list(theta.shape[1:]) != [nd, nd + 1]:
        raise ValueError(f"affine_grid: theta must be [N, 2, 3] with a 4-D out_shape or [N, 3, 4] with a 5-D one, "
                         f"got theta {list(theta.shape)} and out_shape {out_shape}")
    # N and C may be run-time sizes (x.shape[0] of a converted function): the grid reads only H, W (and D)
    if any(isinstance(d, _symbolic_types()) for d in out_shape[2:]):
        raise ValueError("affine_grid: the spatial sizes of out_shape must be known while the Program is built")
    spatial = [int(d) for d in out_shape[2:]]
    axes = [_base_coords(s, align_corners) for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # D/H/W order; the grid lists x (W) first
    base = np.stack(list(reversed(mesh)) + [np.ones(spatial)], -1).reshape(-1, nd + 1)
    grid = matmul(constant(base, str(theta.dtype)), theta, transpose_y=True)  # [N, prod(spatial), nd]
    return reshape(grid, [_dim(theta, 0)] + spatial + [nd])


def _symbolic_types():
    import runtime  # noqa: PLC0415  (framework loads after the op modules)
    return (runtime.framework.Variable,)


# -- grid_sample ------------------------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    if align_corners:
        return scale(coord, (size - 1) / 2.0, bias=(size - 1) / 2.0)
    return scale(coord, size / 2.0, bias=(size - 1) / 2.0)


def _reflect(coord, twice_low, twice_high):
    """Paddle's reflect_coordinates: mirror ``coord`` into [low, high] (given doubled)."""
    if twice_low == twice_high:
        return scale(coord, 0.0)
    low, span = twice_low / 2.0, (twice_high - twice_low) / 2.0
    dist = abs_(scale(coord, 1.0, bias=-low))
    flips = floor(scale(dist, 1.0 / span))
    extra = subtract(dist, scale(flips, span))
    odd = greater_equal(abs_(subtract(flips, scale(floor(scale(flips, 0.5)), 2.0))), constant(0.5, str(dist.dtype)))
    return where(odd, scale(extra, -1.0, bias=span + low), scale(extra, 1.0, bias=low))


def _source_coord(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        return clip(coord, 0.0, float(size - 1))
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        return clip(coord, 0.0, float(size - 1))
    return coord


def _corner(flat, coords, sizes, c):
    """Values at the integer positions ``coords`` ([N, L] each; x first) of flat [N, C, prod(sizes)] (``sizes``
    W first), and where they lie inside the input (zeros padding reads 0 outside)."""
    dt = str(flat.dtype)
    inside, idx, stride = None, None, 1
    for coord, size in zip(coords, sizes):
        within = logical_and(greater_equal(coord, constant(0.0, dt)), less_equal(coord, constant(size - 1.0, dt)))
        inside = within if inside is None else logical_and(inside, within)
        part = scale(clip(coord, 0.0, size - 1.0), float(stride))
        idx = part if idx is None else add(part, idx)
        stride *= size
    idx = cast(idx, "int64")
    n, length = _dim(idx, 0), _dim(idx, 1)
    vals = take_along_axis(flat, expand(unsqueeze(idx, 1), [n, c, length]), axis=2)
    return vals, unsqueeze(cast(inside, dt), 1)


@composite("grid_sample", functional=["grid_sample"], float16_in_float32=True)
def grid_sample(x: TensorLike, grid: TensorLike, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: str | None = None) -> TensorLike:
    """Samples of an NCHW ``x`` at the normalized (x, y) points of ``grid`` [N, H_out, W_out, 2] (or of an
    NCDHW ``x`` at the (x, y, z) points of [N, D_out, H_out, W_out, 3]; [-1, 1] spans the input): ``mode``
    "bilinear" (trilinear in 3-D) or "nearest", ``padding_mode`` "zeros", "border" or "reflection"."""
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}")
    nd = x.ndim - 2
    if nd not in (2, 3) or grid.ndim != x.ndim or grid.shape[-1] != nd:
        raise ValueError(f"grid_sample: x must be [N, C, H, W] with grid [N, H_out, W_out, 2], or [N, C, D, H, W] "
                         f"with grid [N, D_out, H_out, W_out, 3], got {list(x.shape)} and {list(grid.shape)}")
    c = x.shape[1]
    sizes = list(reversed(x.shape[2:]))  # W, H(, D): the order of the grid's coordinates
    if min([c] + sizes) < 0:
        raise ValueError(f"grid_sample: the input's channels and spatial dims must be known, got {list(x.shape)}")
    n = _dim(grid, 0)
    out_dims = [_dim(grid, i) for i in range(1, nd + 1)]
    flat = reshape(x, [_dim(x, 0), c, int(np.prod(sizes))])
    points = reshape(grid, [n, -1, nd])
    coords = [_source_coord(getitem(points, (slice(None), slice(None), k)), size, padding_mode, align_corners)
              for k, size in enumerate(sizes)]
    if mode == "nearest":
        vals, inside = _corner(flat, [round_(v) for v in coords], sizes, c)
        out = multiply(vals, inside)
    else:
        lows = [floor(v) for v in coords]
        highs = [scale(v, 1.0, bias=1.0) for v in lows]
        # weight of the low corner: high - coord; of the high corner: coord - low (Paddle's)
        weights = [(subtract(hi, v), subtract(v, lo)) for v, lo, hi in zip(coords, lows, highs)]
        out = None
        # corners in Paddle's order: x fastest, then y (then z)
        for pick in itertools.product((0, 1), repeat=nd):
            pick = pick[::-1]  # pick[k]: low (0) or high (1) along coordinate k (x first)
            corner = [highs[k] if b else lows[k] for k, b in enumerate(pick)]
            wgt = weights[0][pick[0]]
            for k in range(1, nd):
                wgt = multiply(wgt, weights[k][pick[k]])
            vals, inside = _corner(flat, corner, sizes, c)
            term = multiply(vals, multiply(unsqueeze(wgt, 1), inside))
            out = term if out is None else add(out, term)
    return reshape(out, [n, c] + out_dims)
