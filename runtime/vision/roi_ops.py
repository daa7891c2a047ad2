"""paddle.vision.ops' region-of-interest pooling: ``roi_align``, ``roi_pool``, ``psroi_pool`` and their
layers (``RoIAlign``, ``RoIPool``, ``PSRoIPool``), as Paddle 3.3's CPU kernels compute them.

Each is one op with a numpy kernel and a gradient op to ``x`` (Paddle gives the boxes none). The boxes of
every image follow each other in ``boxes`` [R, 4] (x1, y1, x2, y2 in input pixels); ``boxes_num`` [N] says
how many belong to each image. ``roi_align`` and ``psroi_pool`` are linear in ``x``: the kernel lists,
per output bin, the input positions it reads and their weights ("taps"), the forward sums them in
Paddle's order and the gradient scatters the output gradient back through the same taps.
``roi_align``'s values are Paddle's bit for bit; its gradient is their derivative, which is Paddle's
except for boxes under one pixel with ``aligned=True``: Paddle 3.3's CPU gradient kernel widens those
to one pixel though its forward does not.
"""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import GRAD_ONLY, Meta, def_op

__all__ = ["roi_align", "roi_pool", "psroi_pool", "RoIAlign", "RoIPool", "PSRoIPool"]

_NO_ONNX = "region pooling over a data-dependent list of boxes; not lowered"


def _batch_ids(x, boxes, boxes_num, what):
    """The image index of every box: boxes_num [N] counts the boxes of each image, in order."""
    if x.ndim != 4 or boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"{what}: x must be [N, C, H, W] and boxes [R, 4], got {list(x.shape)} and "
                         f"{list(boxes.shape)}")
    if boxes_num is None:
        if x.shape[0] != 1:
            raise ValueError(f"{what}: boxes_num is needed when x holds {x.shape[0]} images")
        return np.zeros(boxes.shape[0], np.int64)
    counts = np.asarray(boxes_num).reshape(-1).astype(np.int64)
    if counts.shape[0] != x.shape[0] or counts.sum() != boxes.shape[0] or (counts < 0).any():
        raise ValueError(f"{what}: boxes_num {counts.tolist()} must give the number of boxes of each of the "
                         f"{x.shape[0]} images, {boxes.shape[0]} in all")
    return np.repeat(np.arange(x.shape[0]), counts)


def _round(v):
    # C's round: halves away from zero (numpy's rounds them to even)
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _scatter(x_shape, dtype, flat_idx, values):
    """An x-shaped array holding the sums of ``values`` at the flat positions ``flat_idx``."""
    out = np.bincount(flat_idx.reshape(-1), values.reshape(-1).astype(np.float64), int(np.prod(x_shape)))
    return out.reshape(x_shape).astype(dtype)


# -- roi_align -------------------------------------------------------------------------------------------
def _axis_taps(pos, size):
    """Paddle's bilinear rule along one axis for the sample positions ``pos``: (low, high, low weight,
    high weight, inside); a sample beyond [-1, size] reads nothing."""
    dt = pos.dtype.type
    inside = ~((pos < -1) | (pos > size))
    pos = np.maximum(pos, dt(0))
    low = np.where(inside, pos, 0).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    pos = np.where(edge, low.astype(pos.dtype), pos)
    w_low = (high.astype(pos.dtype) - pos).astype(pos.dtype)  # Paddle's: high - pos, then 1 - that
    return low, high, w_low, (dt(1) - w_low).astype(pos.dtype), inside


def _align_taps(box, h, w, ph, pw, scale, sampling_ratio, aligned):
    """(flat positions [ph*pw, S, 4], weights [ph*pw, S, 4], 1 / S) of one box: S samples per bin, each
    reading four corners (Paddle's order: low-low, low-high x, high y-low x, high-high)."""
    dt = box.dtype.type
    off = dt(0.5) if aligned else dt(0)
    scale = dt(np.float32(scale))  # Paddle's attribute is a float32
    x0, y0, x1, y1 = (dt(box[k] * scale) - off for k in range(4))
    rw, rh = dt(x1 - x0), dt(y1 - y0)
    if not aligned:
        rw, rh = max(rw, dt(1)), max(rh, dt(1))
    gh = sampling_ratio if sampling_ratio > 0 else max(int(np.ceil(rh / dt(ph))), 0)
    gw = sampling_ratio if sampling_ratio > 0 else max(int(np.ceil(rw / dt(pw))), 0)
    # a box of no height or width (aligned) has no samples: its bins are 0 (Paddle's are 0 * inf)
    inv = dt(1) / dt(max(gh * gw, 1))

    def positions(start, size, pooled, grid):
        frac = (np.arange(grid, dtype=box.dtype) + dt(0.5)) / dt(grid) if grid else np.zeros(0, box.dtype)
        return (start + dt(size / dt(pooled)) * (np.arange(pooled, dtype=box.dtype)[:, None] + frac)).astype(box.dtype)

    ylo, yhi, wyl, wyh, yin = (a.reshape(ph, 1, gh, 1) for a in _axis_taps(positions(y0, rh, ph, gh), h))
    xlo, xhi, wxl, wxh, xin = (a.reshape(1, pw, 1, gw) for a in _axis_taps(positions(x0, rw, pw, gw), w))
    inside = (yin & xin)[..., None]
    idx = np.stack([ylo * w + xlo, ylo * w + xhi, yhi * w + xlo, yhi * w + xhi], -1)
    wgt = np.stack([wxl * wyl, wxh * wyl, wxl * wyh, wxh * wyh], -1)
    idx, wgt = np.where(inside, idx, 0), np.where(inside, wgt, 0).astype(box.dtype)
    return idx.reshape(ph * pw, gh * gw, 4), wgt.reshape(ph * pw, gh * gw, 4), inv


def _roi_align_kernel(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                      sampling_ratio=-1, aligned=True):
    ids = _batch_ids(x, boxes, boxes_num, "roi_align")
    n, c, h, w = x.shape
    out = np.zeros((boxes.shape[0], c, pooled_height * pooled_width), x.dtype)
    for r, b in enumerate(ids):
        idx, wgt, inv = _align_taps(boxes[r].astype(x.dtype), h, w, pooled_height, pooled_width, spatial_scale,
                                    sampling_ratio, aligned)
        flat = x[b].reshape(c, h * w)
        acc = np.zeros((c, idx.shape[0]), x.dtype)
        for s in range(idx.shape[1]):  # Paddle's order: per sample, its four corners summed, then added
            v = flat[:, idx[:, s]] * wgt[:, s]
            acc += ((v[..., 0] + v[..., 1]) + v[..., 2]) + v[..., 3]
        out[r] = acc * inv
    return out.reshape(boxes.shape[0], c, pooled_height, pooled_width)


def _roi_align_grad_kernel(x, boxes, boxes_num, out_grad, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                           sampling_ratio=-1, aligned=True):
    ids = _batch_ids(x, boxes, boxes_num, "roi_align")
    n, c, h, w = x.shape
    flat_idx, values = [], []
    g = out_grad.reshape(boxes.shape[0], c, pooled_height * pooled_width)
    for r, b in enumerate(ids):
        idx, wgt, inv = _align_taps(boxes[r].astype(x.dtype), h, w, pooled_height, pooled_width, spatial_scale,
                                    sampling_ratio, aligned)
        base = (b * c + np.arange(c))[:, None, None, None] * (h * w)
        flat_idx.append(base + idx[None])
        values.append(g[r][:, :, None, None] * inv * wgt[None])
    if not flat_idx:
        return np.zeros_like(x)
    return _scatter(x.shape, x.dtype, np.concatenate([f.reshape(-1) for f in flat_idx]),
                    np.concatenate([v.reshape(-1) for v in values]))


def _pooled_infer(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, **attrs):
    return Meta([boxes.shape[0], x.shape[1], pooled_height, pooled_width], x.dtype)


_ALIGN_ATTRS = {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0, "sampling_ratio": -1, "aligned": True}

def_op("roi_align", ["X", "Boxes", "BoxesNum"], ["Out"], attrs=dict(_ALIGN_ATTRS), kernel=_roi_align_kernel,
       infer=_pooled_infer, no_onnx=_NO_ONNX,
       grad=lambda ctx: [apply("roi_align_grad", *ctx.inputs, ctx.out_grads[0], **ctx.attrs), None, None],
       doc="RoIAlign: bilinear samples averaged over each bin of each box (Paddle's paddle.vision.ops.roi_align).")
def_op("roi_align_grad", ["X", "Boxes", "BoxesNum", "OutGrad"], ["XGrad"], attrs=dict(_ALIGN_ATTRS),
       kernel=_roi_align_grad_kernel, infer=lambda x, *a, **k: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY,
       doc="The gradient of roi_align to x: each bin's gradient spread over the positions it sampled.")


# -- roi_pool --------------------------------------------------------------------------------------------
def _pool_bins(start, end, pooled, size, dt):
    """Paddle's roi_pool bin edges along one axis (in the input's float type ``dt``): [pooled] starts and
    ends clipped to [0, size]."""
    length = max(end - start + 1, 1)
    bin_size = dt(length) / dt(pooled)
    k = np.arange(pooled, dtype=dt)
    lo = np.floor(k * bin_size).astype(np.int64) + start
    hi = np.ceil((k + 1) * bin_size).astype(np.int64) + start
    return np.clip(lo, 0, size), np.clip(hi, 0, size)


def _roi_pool_kernel(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    ids = _batch_ids(x, boxes, boxes_num, "roi_pool")
    n, c, h, w = x.shape
    out = np.zeros((boxes.shape[0], c, pooled_height, pooled_width), x.dtype)
    arg = np.full(out.shape, -1, np.int64)  # flat position in x of each bin's maximum (-1: an empty bin)
    for r, b in enumerate(ids):
        dt = x.dtype.type
        x0, y0, x1, y1 = (int(v) for v in _round(boxes[r].astype(x.dtype) * dt(np.float32(spatial_scale))))
        hs, he = _pool_bins(y0, y1, pooled_height, h, dt)
        ws, we = _pool_bins(x0, x1, pooled_width, w, dt)
        for i in range(pooled_height):
            for j in range(pooled_width):
                if he[i] <= hs[i] or we[j] <= ws[j]:
                    continue
                region = x[b, :, hs[i]:he[i], ws[j]:we[j]].reshape(c, -1)
                k = region.argmax(1)  # the first maximum, as Paddle's strict > scan
                out[r, :, i, j] = region[np.arange(c), k]
                rows, cols = hs[i] + k // (we[j] - ws[j]), ws[j] + k % (we[j] - ws[j])
                arg[r, :, i, j] = ((b * c + np.arange(c)) * h + rows) * w + cols
    return out, arg


def _roi_pool_grad_kernel(x, argmax, out_grad):
    hit = argmax >= 0
    return _scatter(x.shape, x.dtype, argmax[hit], out_grad[hit])


_POOL_ATTRS = {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0}

def_op("roi_pool", ["X", "Boxes", "BoxesNum"], ["Out", "Argmax"], attrs=dict(_POOL_ATTRS), kernel=_roi_pool_kernel,
       infer=lambda *a, **k: (_pooled_infer(*a, **k), Meta(_pooled_infer(*a, **k).shape, "int64")),
       no_onnx=_NO_ONNX,
       grad=lambda ctx: [apply("roi_pool_grad", ctx.inputs[0], ctx.outputs[1], ctx.out_grads[0]), None, None],
       doc="RoIPool: the maximum of each bin of each box, boxes rounded to whole pixels (Paddle's roi_pool).")
def_op("roi_pool_grad", ["X", "Argmax", "OutGrad"], ["XGrad"], kernel=_roi_pool_grad_kernel,
       infer=lambda x, a, g: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY,
       doc="The gradient of roi_pool to x: each bin's gradient added at its maximum.")


# -- psroi_pool ------------------------------------------------------------------------------------------
def _ps_bins(box, ph, pw, scale, h, w):
    """Paddle's psroi_pool bins of one box (in the box's float type): row and column starts/ends, clipped
    to the input."""
    f = box.dtype.type
    scale = f(np.float32(scale))  # Paddle's attribute is a float32
    x0, y0 = _round(box[0]) * f(scale), _round(box[1]) * f(scale)
    x1, y1 = (_round(box[2]) + f(1)) * f(scale), (_round(box[3]) + f(1)) * f(scale)
    rh, rw = max(f(y1 - y0), f(0.1)), max(f(x1 - x0), f(0.1))
    bh, bw = f(rh / f(ph)), f(rw / f(pw))
    kh, kw = np.arange(ph, dtype=f), np.arange(pw, dtype=f)
    hs = np.clip(np.floor(bh * kh + f(y0)), 0, h).astype(np.int64)
    he = np.clip(np.ceil(bh * (kh + 1) + f(y0)), 0, h).astype(np.int64)
    ws = np.clip(np.floor(bw * kw + f(x0)), 0, w).astype(np.int64)
    we = np.clip(np.ceil(bw * (kw + 1) + f(x0)), 0, w).astype(np.int64)
    return hs, he, ws, we


def _ps_channels(c, ph, pw, what="psroi_pool"):
    if c % (ph * pw):
        raise ValueError(f"{what}: the input's channels ({c}) must be divisible by output_size[0] * "
                         f"output_size[1] ({ph * pw})")
    return c // (ph * pw)


def _psroi_pool_kernel(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    ids = _batch_ids(x, boxes, boxes_num, "psroi_pool")
    n, c, h, w = x.shape
    co = _ps_channels(c, pooled_height, pooled_width)
    xs = x.reshape(n, co, pooled_height, pooled_width, h, w)  # channel (k * ph + i) * pw + j feeds bin (i, j)
    out = np.zeros((boxes.shape[0], co, pooled_height, pooled_width), x.dtype)
    for r, b in enumerate(ids):
        hs, he, ws, we = _ps_bins(boxes[r].astype(x.dtype), pooled_height, pooled_width, spatial_scale, h, w)
        for i in range(pooled_height):
            for j in range(pooled_width):
                area = (he[i] - hs[i]) * (we[j] - ws[j])
                if area > 0:
                    region = xs[b, :, i, j, hs[i]:he[i], ws[j]:we[j]]
                    out[r, :, i, j] = region.sum((1, 2)) / x.dtype.type(area)
    return out


def _psroi_pool_grad_kernel(x, boxes, boxes_num, out_grad, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    ids = _batch_ids(x, boxes, boxes_num, "psroi_pool")
    n, c, h, w = x.shape
    co = _ps_channels(c, pooled_height, pooled_width)
    gx = np.zeros((n, co, pooled_height, pooled_width, h, w), np.float64)
    for r, b in enumerate(ids):
        hs, he, ws, we = _ps_bins(boxes[r].astype(x.dtype), pooled_height, pooled_width, spatial_scale, h, w)
        for i in range(pooled_height):
            for j in range(pooled_width):
                area = (he[i] - hs[i]) * (we[j] - ws[j])
                if area > 0:
                    gx[b, :, i, j, hs[i]:he[i], ws[j]:we[j]] += (out_grad[r, :, i, j] / area)[:, None, None]
    return gx.reshape(x.shape).astype(x.dtype)


def _psroi_infer(x, boxes, boxes_num=None, pooled_height=1, pooled_width=1, **attrs):
    c = x.shape[1]
    co = -1 if c < 0 else _ps_channels(c, pooled_height, pooled_width)
    return Meta([boxes.shape[0], co, pooled_height, pooled_width], x.dtype)


def_op("psroi_pool", ["X", "Boxes", "BoxesNum"], ["Out"], attrs=dict(_POOL_ATTRS), kernel=_psroi_pool_kernel,
       infer=_psroi_infer, no_onnx=_NO_ONNX,
       grad=lambda ctx: [apply("psroi_pool_grad", *ctx.inputs, ctx.out_grads[0], **ctx.attrs), None, None],
       doc="Position-sensitive RoI pooling: bin (i, j) averages its own group of channels (Paddle's psroi_pool).")
def_op("psroi_pool_grad", ["X", "Boxes", "BoxesNum", "OutGrad"], ["XGrad"], attrs=dict(_POOL_ATTRS),
       kernel=_psroi_pool_grad_kernel, infer=lambda x, *a, **k: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY,
       doc="The gradient of psroi_pool to x: each bin's gradient spread evenly over its region.")


# -- the public functions and layers ---------------------------------------------------------------------
def _size2(output_size):
    if isinstance(output_size, int):
        return output_size, output_size
    ph, pw = (int(v) for v in output_size)
    return ph, pw


def roi_align(x: TensorLike, boxes: TensorLike, boxes_num: TensorLike, output_size, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = True, name: str | None = None) -> TensorLike:
    """RoIAlign of ``x`` [N, C, H, W] over ``boxes`` [R, 4] (``boxes_num`` [N]: boxes per image):
    [R, C, *output_size], each bin the mean of ``sampling_ratio`` x ``sampling_ratio`` bilinear samples
    (adaptive, ceil(bin size), when -1); ``aligned`` shifts the boxes by half a pixel."""
    ph, pw = _size2(output_size)
    return apply("roi_align", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                 spatial_scale=float(spatial_scale), sampling_ratio=int(sampling_ratio), aligned=bool(aligned))


def roi_pool(x: TensorLike, boxes: TensorLike, boxes_num: TensorLike, output_size, spatial_scale: float = 1.0,
             name: str | None = None) -> TensorLike:
    """RoIPool of ``x`` [N, C, H, W] over ``boxes`` [R, 4]: [R, C, *output_size], each bin the maximum
    of its pixels (0 for an empty bin)."""
    ph, pw = _size2(output_size)
    return apply("roi_pool", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                 spatial_scale=float(spatial_scale))[0]


def psroi_pool(x: TensorLike, boxes: TensorLike, boxes_num: TensorLike, output_size, spatial_scale: float = 1.0,
               name: str | None = None) -> TensorLike:
    """Position-sensitive RoI pooling of ``x`` [N, C, H, W] (C divisible by ph * pw) over ``boxes``:
    [R, C / (ph * pw), ph, pw], bin (i, j) the mean of channel group (i, j) over the bin."""
    ph, pw = _size2(output_size)
    return apply("psroi_pool", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                 spatial_scale=float(spatial_scale))


from ..nn.layer import Layer  # noqa: E402  (the layers below; nn loads before vision)


class RoIAlign(Layer):
    """The layer of :func:`roi_align`."""

    def __init__(self, output_size, spatial_scale: float = 1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned)


class RoIPool(Layer):
    """The layer of :func:`roi_pool`."""

    def __init__(self, output_size, spatial_scale: float = 1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(Layer):
    """The layer of :func:`psroi_pool`."""

    def __init__(self, output_size, spatial_scale: float = 1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)
