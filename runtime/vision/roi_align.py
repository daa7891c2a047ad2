"""paddle.vision.ops ``roi_align`` / ``RoIAlign``: the box features of a two-stage detector's head
(Faster / Mask R-CNN): each box cut into ``output_size`` bins, each bin the mean of bilinear samples
on a regular grid (``sampling_ratio`` per side, or ``ceil(box side / bins)``), as Paddle's kernel.

Bilinear sampling is separable: every sample's weight is (a weight over rows) x (a weight over
columns), and a sample outside the map (Paddle's ``y < -1 or y > H`` test, on either axis) is zero
for both. So a box's bins are ``Ay @ X[image] @ Ax^T``, with ``Ay`` [bins_h, H] the row weights of
its samples summed per bin (and divided by their count), ``Ax`` [bins_w, W] the same for columns;
the input gradient is ``Ay^T @ g @ Ax``, summed over the image's boxes. Equal to Paddle 3.3's to
float32 rounding (the sums run in another order than its per-sample loop).
"""
import math

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..nn.layer import Layer
from ..registry import GRAD_ONLY, Meta, def_op


def _axis_weights(start, bin_size, grid, pooled, size, dt):
    """[pooled, size]: each bin's samples along one axis, as bilinear weights over the ``size`` cells,
    summed per bin and divided by the samples per bin (Paddle's bilinear_interpolate, one axis)."""
    k = np.arange(pooled, dtype=dt)[:, None]
    i = np.arange(grid, dtype=dt)[None, :]
    pos = start + k * bin_size + (i + dt(0.5)) * bin_size / dt(grid)  # [pooled, grid]
    valid = (pos >= -1.0) & (pos <= size)
    pos = np.maximum(pos, dt(0))
    low = pos.astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    frac = np.where(edge, dt(0), pos - low.astype(dt)).astype(dt)
    w = np.zeros((pooled, size), dt)
    rows = np.broadcast_to(np.arange(pooled)[:, None], pos.shape)
    np.add.at(w, (rows[valid], low[valid]), (dt(1) - frac)[valid])
    np.add.at(w, (rows[valid], high[valid]), frac[valid])
    return w / dt(grid)


def _box_weights(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned):
    """(image index of each box, the [N, ph, H] row weights, the [N, pw, W] column weights)."""
    n_img, _, height, width = x.shape
    dt = x.dtype.type
    counts = np.full(n_img, boxes.shape[0] // max(n_img, 1)) if boxes_num is None else boxes_num.astype(np.int64)
    if counts.sum() != boxes.shape[0] or len(counts) != n_img:
        raise ValueError(f"roi_align: boxes_num {counts.tolist()} must give a count per image ({n_img} images) "
                         f"adding up to the {boxes.shape[0]} boxes")
    image = np.repeat(np.arange(n_img), counts)
    offset = dt(0.5) if aligned else dt(0)
    ay = np.zeros((boxes.shape[0], pooled_height, height), dt)
    ax = np.zeros((boxes.shape[0], pooled_width, width), dt)
    for n, box in enumerate(boxes.astype(dt)):
        x0, y0, x1, y1 = box * dt(spatial_scale) - offset
        roi_w, roi_h = x1 - x0, y1 - y0
        if not aligned:  # Paddle forces boxes to be at least 1x1 unless aligned
            roi_w, roi_h = max(roi_w, dt(1)), max(roi_h, dt(1))
        bin_h, bin_w = dt(roi_h / pooled_height), dt(roi_w / pooled_width)
        grid_h = sampling_ratio if sampling_ratio > 0 else max(math.ceil(roi_h / pooled_height), 1)
        grid_w = sampling_ratio if sampling_ratio > 0 else max(math.ceil(roi_w / pooled_width), 1)
        ay[n] = _axis_weights(y0, bin_h, grid_h, pooled_height, height, dt)
        ax[n] = _axis_weights(x0, bin_w, grid_w, pooled_width, width, dt)
    return image, ay, ax


_ATTRS = {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0, "sampling_ratio": -1, "aligned": True}


def _roi_align_kernel(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                      sampling_ratio=-1, aligned=True):
    image, ay, ax = _box_weights(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
                                 sampling_ratio, aligned)
    out = np.zeros((boxes.shape[0], x.shape[1], pooled_height, pooled_width), x.dtype)
    for b in np.unique(image):  # the boxes of one image share its feature map
        at = np.flatnonzero(image == b)
        rows = np.matmul(ay[at][:, None], x[b][None])  # [n, C, ph, W]
        out[at] = np.matmul(rows, ax[at].transpose(0, 2, 1)[:, None])
    return out


def _roi_align_grad_kernel(x, boxes, boxes_num, g, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                           sampling_ratio=-1, aligned=True):
    image, ay, ax = _box_weights(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
                                 sampling_ratio, aligned)
    dx = np.zeros_like(x)
    for b in np.unique(image):
        at = np.flatnonzero(image == b)
        rows = np.matmul(ay[at].transpose(0, 2, 1)[:, None], g[at])  # [n, C, H, pw]
        dx[b] = np.matmul(rows, ax[at][:, None]).sum(0)
    return dx


def _roi_align_infer(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, **attrs):
    return Meta([boxes.shape[0], x.shape[1], pooled_height, pooled_width], x.dtype)


def_op("roi_align", ["X", "ROIs", "RoisNum"], ["Out"], attrs=dict(_ATTRS), kernel=_roi_align_kernel,
       infer=_roi_align_infer,
       grad=lambda ctx: [apply("roi_align_grad", ctx.inputs[0], ctx.inputs[1], ctx.inputs[2], ctx.out_grads[0],
                               **ctx.attrs), None, None],
       no_onnx="RoiAlign's sampling grid and boxes-per-image layout differ from Paddle's; not lowered",
       doc="Each box's features pooled into bins of bilinear samples (Paddle's paddle.vision.ops.roi_align).")
def_op("roi_align_grad", ["X", "ROIs", "RoisNum", "OutGrad"], ["XGrad"], attrs=dict(_ATTRS),
       kernel=_roi_align_grad_kernel, infer=lambda x, *rest, **attrs: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY,
       doc="Gradient of roi_align: each bin's gradient spread back over the cells its samples read.")


def _pair(size, what):
    if isinstance(size, int):
        return size, size
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError(f"{what}: output_size must be an int or a pair of ints, got {size!r}")


def roi_align(x: TensorLike, boxes: TensorLike, boxes_num: TensorLike | None, output_size, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = True, name: str | None = None) -> TensorLike:
    """[N, C, ph, pw] features of the ``boxes`` [N, 4] (x1, y1, x2, y2 in input pixels, times
    ``spatial_scale`` on ``x`` [B, C, H, W]); ``boxes_num`` [B] (int32) says how many boxes each image
    has, in order. ``aligned``: pixel centres at half-integers (a box is shifted by -0.5)."""
    ph, pw = _pair(output_size, "roi_align")
    return apply("roi_align", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                 spatial_scale=float(spatial_scale), sampling_ratio=int(sampling_ratio), aligned=bool(aligned))


class RoIAlign(Layer):
    """``roi_align`` as a layer (Paddle's ``paddle.vision.ops.RoIAlign``)."""

    def __init__(self, output_size, spatial_scale: float = 1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"
