"""paddle.vision.ops' deformable convolution: ``deform_conv2d`` (v1, and v2 with a ``mask``) and the
``DeformConv2D`` layer.

A composite of registered ops, Paddle's im2col with offsets written out: every kernel tap of every
output position reads the input bilinearly at its grid position plus its learned offset (four corners
through ``take_along_axis``, a corner outside the input reading 0, a point beyond (-1, size) reading
nothing), is scaled by its mask, and the columns are multiplied by the filter. Its gradients to ``x``,
``offset``, ``mask``, ``weight`` and ``bias`` are those of the ops (the offset's through the bilinear
weights, as Paddle's), eagerly and in Programs. The output's spatial size must be known while a
Program is built: the sampling grid is a constant.
"""
import math

import numpy as np

from ..hints import TensorLike
from ..registry import composite
from ..ops.broadcast import expand
from ..ops.common import cast, constant
from ..ops.composites_extra import _dim
from ..ops.elementwise import clip, floor
from ..ops.indexing import getitem
from ..ops.logic import greater_equal, greater_than, less_equal, less_than, logical_and
from ..ops.math import add, matmul, multiply, scale, subtract
from ..ops.shape import reshape
from ..ops.sort import take_along_axis

__all__ = ["deform_conv2d", "DeformConv2D"]


def _pair(v, what):
    v = [int(v), int(v)] if isinstance(v, int) else [int(d) for d in v]
    if len(v) != 2:
        raise ValueError(f"deform_conv2d: {what} must be an int or 2 ints, got {v}")
    return v


def _both(a, b):
    return logical_and(a, b)


@composite("deform_conv2d")
def deform_conv2d(x: TensorLike, offset: TensorLike, weight: TensorLike, bias: TensorLike | None = None,
                  stride=1, padding=0, dilation=1, deformable_groups: int = 1, groups: int = 1,
                  mask: TensorLike | None = None, name: str | None = None) -> TensorLike:
    """Deformable convolution of ``x`` [N, C, H, W] with ``weight`` [Co, C / groups, kh, kw]: tap k of
    deformable group g at an output position reads the input at its place in the kernel's window plus
    (``offset[:, 2 * (g * kh * kw + k)]``, ``offset[:, 2 * (g * kh * kw + k) + 1]``) (dy, dx) of
    ``offset`` [N, 2 * dg * kh * kw, Ho, Wo], bilinearly, times ``mask[:, g * kh * kw + k]`` (v2) if given."""
    sh, sw = _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    dh, dw = _pair(dilation, "dilation")
    if len(x.shape) != 4 or len(weight.shape) != 4 or len(offset.shape) != 4:
        raise ValueError(f"deform_conv2d: x, offset and weight must be 4-D, got {list(x.shape)}, "
                         f"{list(offset.shape)} and {list(weight.shape)}")
    c, h, w = x.shape[1:]
    co, cg, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    if min(c, h, w, ho, wo) < 0:
        raise ValueError(f"deform_conv2d: the channels and spatial sizes of x and offset must be known, got "
                         f"{list(x.shape)} and {list(offset.shape)}")
    dg, g, taps = int(deformable_groups), int(groups), kh * kw
    if c != cg * g or co % g or c % dg:
        raise ValueError(f"deform_conv2d: x has {c} channels, weight {list(weight.shape)} with groups={g} "
                         f"and deformable_groups={dg} do not fit them")
    if offset.shape[1] != 2 * dg * taps:
        raise ValueError(f"deform_conv2d: offset must have 2 * deformable_groups * kh * kw = {2 * dg * taps} "
                         f"channels, got {offset.shape[1]}")
    if mask is not None and mask.shape[1] != dg * taps:
        raise ValueError(f"deform_conv2d: mask must have deformable_groups * kh * kw = {dg * taps} channels, "
                         f"got {mask.shape[1]}")
    dt = str(x.dtype)
    n = _dim(x, 0)
    length = ho * wo
    # [N, dg, taps, 2, Ho * Wo]: (dy, dx) of each tap
    off = reshape(offset, [n, dg, taps, 2, length])
    grid_h = (np.arange(ho) * sh - ph)[None, :, None] + (np.arange(kh) * dh)[:, None, None, None]
    grid_w = (np.arange(wo) * sw - pw)[None, None, :] + (np.arange(kw) * dw)[None, :, None, None]
    grid_h = np.broadcast_to(grid_h, (kh, kw, ho, wo)).reshape(taps, length)
    grid_w = np.broadcast_to(grid_w, (kh, kw, ho, wo)).reshape(taps, length)
    ys = add(_part(off, 0), constant(grid_h, dt))
    xs = add(_part(off, 1), constant(grid_w, dt))
    zero, one = constant(0.0, dt), constant(1.0, dt)
    valid = _both(_both(greater_than(ys, constant(-1.0, dt)), greater_than(xs, constant(-1.0, dt))),
                  _both(less_than(ys, constant(float(h), dt)), less_than(xs, constant(float(w), dt))))
    y0, x0 = floor(ys), floor(xs)
    ly, lx = subtract(ys, y0), subtract(xs, x0)
    hy, hx = subtract(one, ly), subtract(one, lx)
    flat = reshape(x, [n, dg, c // dg, h * w])
    val = None
    # Paddle's corners and order: (low, low), (low, high x), (high y, low), (high, high)
    for dy, dx, wgt in ((0, 0, multiply(hy, hx)), (0, 1, multiply(hy, lx)), (1, 0, multiply(ly, hx)),
                        (1, 1, multiply(ly, lx))):
        yi, xi = scale(y0, 1.0, bias=float(dy)), scale(x0, 1.0, bias=float(dx))
        inside = _both(_both(greater_equal(yi, zero), less_equal(yi, constant(h - 1.0, dt))),
                       _both(greater_equal(xi, zero), less_equal(xi, constant(w - 1.0, dt))))
        idx = add(scale(clip(yi, 0.0, h - 1.0), float(w)), clip(xi, 0.0, w - 1.0))
        idx = reshape(cast(idx, "int64"), [n, dg, 1, taps * length])
        vals = take_along_axis(flat, expand(idx, [n, dg, c // dg, taps * length]), axis=3)
        term = multiply(reshape(multiply(wgt, cast(inside, dt)), [n, dg, 1, taps * length]), vals)
        val = term if val is None else add(val, term)
    keep = reshape(cast(valid, dt), [n, dg, 1, taps * length])
    if mask is not None:
        keep = multiply(keep, reshape(mask, [n, dg, 1, taps * length]))
    cols = reshape(multiply(val, keep), [n, g, cg * taps, length])  # rows: channel-major, then tap
    out = matmul(reshape(weight, [g, co // g, cg * taps]), cols)     # [N, g, Co / g, L]
    out = reshape(out, [n, co, ho, wo])
    if bias is not None:
        out = add(out, reshape(bias, [1, co, 1, 1]))
    return out


def _part(off, k):
    """The dy (k=0) or dx (k=1) offsets of every tap: [N, dg, taps, Ho * Wo]."""
    return getitem(off, (slice(None), slice(None), slice(None), k))


from ..nn.initializer import Normal  # noqa: E402  (the layer below; nn loads before vision)
from ..nn.layer import Layer  # noqa: E402


class DeformConv2D(Layer):
    """The layer of :func:`deform_conv2d`: a filter [out_channels, in_channels / groups, kh, kw] (Paddle's
    Normal(0, sqrt(2 / (kh * kw * in_channels))) init) and a bias; ``forward(x, offset, mask=None)``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 deformable_groups: int = 1, groups: int = 1, weight_attr=None, bias_attr=None):
        super().__init__()
        kh, kw = _pair(kernel_size, "kernel_size")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"DeformConv2D: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                             f"be divisible by groups ({groups})")
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = deformable_groups, groups
        std = math.sqrt(2.0 / (kh * kw * in_channels))
        self.weight = self.create_parameter([out_channels, in_channels // groups, kh, kw], attr=weight_attr,
                                            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding, self._dilation,
                             self._deformable_groups, self._groups, mask)
