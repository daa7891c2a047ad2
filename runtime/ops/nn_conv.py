"""2-D convolution and pooling (NCHW) as im2col on strided numpy views.

A window view ``[N, C, OH, OW, kh, kw]`` of the padded input is built without
copying (``sliding_window_view`` + strides for stride/dilation); convolution is
then one matmul per group, and the input gradient is the scatter-add of the
column gradient back through the same ``kh * kw`` strided slices.

Attrs use Paddle's spelling: ``strides``, ``paddings`` (``[top, bottom, left,
right]``), ``dilations``, ``groups``, ``padding_algorithm`` ("EXPLICIT",
"SAME" or "VALID").
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..dispatch import apply
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..registry import GRAD_ONLY, Meta, def_op

_CONV_ATTRS = {"strides": [1, 1], "paddings": [0, 0, 0, 0], "dilations": [1, 1], "groups": 1,
               "padding_algorithm": "EXPLICIT"}
_POOL_ATTRS = {"ksize": [2, 2], "strides": [2, 2], "paddings": [0, 0, 0, 0], "ceil_mode": False,
               "exclusive": True}


def _check_rank(what, name, shape, rank):
    if len(shape) != rank:
        raise ValueError(f"{what}: {name} must be {rank}-D (NCHW), got shape {list(shape)}")


def _out_len(size, k, s, p0, p1, d=1, ceil=False):
    if size < 0:
        return -1
    span = d * (k - 1) + 1
    num = size + p0 + p1 - span
    if num < 0:
        return 0
    return (-(-num // s) if ceil else num // s) + 1


def _resolve_pads(hw, ksize, strides, dilations, paddings, algorithm):
    """Explicit ``[top, bottom, left, right]`` pads (SAME needs known spatial dims)."""
    if algorithm == "VALID":
        return [0, 0, 0, 0]
    if algorithm == "SAME":
        pads = []
        for size, k, s, d in zip(hw, ksize, strides, dilations):
            if size < 0:
                raise ValueError("padding='SAME' needs known spatial dims, got -1")
            out = -(-size // s)
            total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
            pads += [total // 2, total - total // 2]
        return pads
    return list(paddings)


def _windows(xp, k, s, d, oh, ow):
    """``[N, C, OH, OW, kh, kw]`` view of the padded input (no copy)."""
    span = (d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1)
    v = sliding_window_view(xp, span, axis=(2, 3))
    return v[:, :, :s[0] * (oh - 1) + 1:s[0], :s[1] * (ow - 1) + 1:s[1], ::d[0], ::d[1]]


def _pad(x, pads, value=0):
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])), constant_values=value)


def _scatter_windows(cols, shape, pads, k, s, d, oh, ow, dtype):
    """Adjoint of ``_windows``: add ``cols [N, C, OH, OW, kh, kw]`` back into an input-shaped array."""
    n, c, h, w = shape
    out = np.zeros((n, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), dtype=dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            out[:, :, r0:r0 + s[0] * (oh - 1) + 1:s[0], c0:c0 + s[1] * (ow - 1) + 1:s[1]] += cols[..., i, j]
    return out[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


# -- conv2d ----------------------------------------------------------------------
def _conv_geometry(xs, ws, strides, paddings, dilations, groups, padding_algorithm):
    _check_rank("conv2d", "input", xs, 4)
    _check_rank("conv2d", "filter", ws, 4)
    cin, cout = xs[1], ws[0]
    if groups < 1 or (cout >= 0 and cout % groups):
        raise ValueError(f"conv2d: out_channels ({cout}) must be a positive multiple of groups ({groups})")
    if cin >= 0 and ws[1] >= 0 and cin != ws[1] * groups:
        raise ValueError(f"conv2d: input has {cin} channels but the filter of shape {list(ws)} with "
                         f"groups={groups} expects {ws[1] * groups}")
    pads = _resolve_pads(xs[2:], ws[2:], strides, dilations, paddings, padding_algorithm)
    oh = _out_len(xs[2], ws[2], strides[0], pads[0], pads[1], dilations[0])
    ow = _out_len(xs[3], ws[3], strides[1], pads[2], pads[3], dilations[1])
    if oh == 0 or ow == 0:
        raise ValueError(f"conv2d: the filter {list(ws[2:])} (dilations {list(dilations)}) does not fit the "
                         f"padded input {list(xs[2:])} with paddings {pads}")
    return pads, oh, ow


def _group_columns(x, w, strides, paddings, dilations, groups, padding_algorithm):
    """``(oh, ow, columns)``: the output size and, per group, the im2col matrix of ``x``'s windows
    (one row per output position, ``n * oh * ow`` rows), made one group at a time."""
    pads, oh, ow = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    win = _windows(_pad(x, pads), w.shape[2:], strides, dilations, oh, ow)
    n, cg = x.shape[0], x.shape[1] // groups
    columns = (win[:, g * cg:(g + 1) * cg].transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, -1)
               for g in range(groups))
    return oh, ow, columns


def _conv2d_kernel(x, w, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                   padding_algorithm="EXPLICIT"):
    oh, ow, columns = _group_columns(x, w, strides, paddings, dilations, groups, padding_algorithm)
    n, og = x.shape[0], w.shape[0] // groups
    outs = []
    for g, cols in enumerate(columns):
        wg = w[g * og:(g + 1) * og].reshape(og, -1)
        outs.append((cols @ wg.T).reshape(n, oh, ow, og))
    out = outs[0] if groups == 1 else np.concatenate(outs, axis=-1)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2)).astype(x.dtype, copy=False)


def _conv2d_infer(x, w, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                  padding_algorithm="EXPLICIT"):
    _, oh, ow = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    return Meta((x.shape[0], w.shape[0], oh, ow), x.dtype)


def _conv2d_grad_input_kernel(g, w, x, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                              padding_algorithm="EXPLICIT"):
    pads, oh, ow = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    n, cg, og = x.shape[0], x.shape[1] // groups, w.shape[0] // groups
    kh, kw = w.shape[2:]
    parts = []
    for gi in range(groups):
        gg = g[:, gi * og:(gi + 1) * og].transpose(0, 2, 3, 1).reshape(n * oh * ow, og)
        wg = w[gi * og:(gi + 1) * og].reshape(og, -1)
        parts.append((gg @ wg).reshape(n, oh, ow, cg, kh, kw))
    cols = parts[0] if groups == 1 else np.concatenate(parts, axis=3)
    cols = cols.transpose(0, 3, 1, 2, 4, 5)
    return _scatter_windows(cols, x.shape, pads, (kh, kw), strides, dilations, oh, ow, x.dtype)


def _conv2d_grad_filter_kernel(x, g, w, strides=(1, 1), paddings=(0, 0, 0, 0), dilations=(1, 1), groups=1,
                               padding_algorithm="EXPLICIT"):
    _, _, columns = _group_columns(x, w, strides, paddings, dilations, groups, padding_algorithm)
    og = w.shape[0] // groups
    parts = []
    for gi, cols in enumerate(columns):
        gg = g[:, gi * og:(gi + 1) * og].transpose(1, 0, 2, 3).reshape(og, -1)
        parts.append((gg @ cols).reshape(og, *w.shape[1:]))
    out = parts[0] if groups == 1 else np.concatenate(parts, axis=0)
    return out.astype(w.dtype, copy=False)


def _wants_grad(v):
    """Whether the backward being built needs ``v``'s gradient. A static pass knows by name (its required
    set): a Program's intermediate Variables keep the default stop_gradient=True, so reading the flag
    dropped the gradient of a conv whose input came from another op (concat, a layer before it)."""
    from ..static.backward import current_requires  # the static package loads after the op modules
    req = current_requires()
    if req is not None and isinstance(v, _rt.framework.Variable):
        return v.name in req
    return not v.stop_gradient


def _conv2d_grad(ctx):
    x, w = ctx.inputs
    g = ctx.out_grads[0]
    # A network's input rarely needs a gradient; skipping its col2im halves the first layer's backward.
    gx = apply("conv2d_grad_input", g, w, x, **ctx.attrs) if _wants_grad(x) else None
    gw = apply("conv2d_grad_filter", x, g, w, **ctx.attrs) if _wants_grad(w) else None
    return [gx, gw]


def_op("conv2d", ["Input", "Filter"], ["Output"], attrs=dict(_CONV_ATTRS),
       kernel=_conv2d_kernel, infer=_conv2d_infer, grad=_conv2d_grad, onnx="conv2d", functional=["conv2d"],
       doc="2-D convolution, NCHW input and [out, in/groups, kh, kw] filter.")
def_op("conv2d_grad_input", ["OutGrad", "Filter", "Input"], ["InputGrad"], attrs=dict(_CONV_ATTRS),
       kernel=_conv2d_grad_input_kernel, infer=lambda g, w, x, **_: Meta(x.shape, x.dtype),
       no_onnx=GRAD_ONLY, doc="Gradient of conv2d with respect to its input (col2im of OutGrad x Filter).")
def_op("conv2d_grad_filter", ["Input", "OutGrad", "Filter"], ["FilterGrad"], attrs=dict(_CONV_ATTRS),
       kernel=_conv2d_grad_filter_kernel, infer=lambda x, g, w, **_: Meta(w.shape, w.dtype),
       no_onnx=GRAD_ONLY, doc="Gradient of conv2d with respect to its filter (OutGrad x im2col(Input)).")


# -- pooling ---------------------------------------------------------------------
def _pool_geometry(what, xs, ksize, strides, paddings, ceil_mode):
    _check_rank(what, "input", xs, 4)
    oh = _out_len(xs[2], ksize[0], strides[0], paddings[0], paddings[1], ceil=ceil_mode)
    ow = _out_len(xs[3], ksize[1], strides[1], paddings[2], paddings[3], ceil=ceil_mode)
    if oh == 0 or ow == 0:
        raise ValueError(f"{what}: kernel {list(ksize)} does not fit the padded input {list(xs[2:])} "
                         f"with paddings {list(paddings)}")
    # ceil_mode may need extra bottom/right padding for the last window to exist.
    pads = list(paddings)
    if xs[2] >= 0:
        pads[1] += max((oh - 1) * strides[0] + ksize[0] - (xs[2] + pads[0] + pads[1]), 0)
    if xs[3] >= 0:
        pads[3] += max((ow - 1) * strides[1] + ksize[1] - (xs[3] + pads[2] + pads[3]), 0)
    return pads, oh, ow


def _pool_infer(what):
    def infer(x, ksize, strides, paddings, ceil_mode=False, exclusive=True):
        _, oh, ow = _pool_geometry(what, x.shape, ksize, strides, paddings, ceil_mode)
        return Meta((x.shape[0], x.shape[1], oh, ow), x.dtype)
    return infer


def _max_windows(x, ksize, strides, paddings, ceil_mode):
    pads, oh, ow = _pool_geometry("max_pool2d", x.shape, ksize, strides, paddings, ceil_mode)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _windows(_pad(x, pads, fill), ksize, strides, (1, 1), oh, ow)
    return win, pads, oh, ow


def _max_pool_kernel(x, ksize=(2, 2), strides=(2, 2), paddings=(0, 0, 0, 0), ceil_mode=False, exclusive=True):
    win = _max_windows(x, ksize, strides, paddings, ceil_mode)[0]
    return win.max(axis=(4, 5))


def _max_pool_grad_kernel(x, g, ksize=(2, 2), strides=(2, 2), paddings=(0, 0, 0, 0), ceil_mode=False,
                          exclusive=True):
    win, pads, oh, ow = _max_windows(x, ksize, strides, paddings, ceil_mode)
    n, c = x.shape[:2]
    arg = win.reshape(n, c, oh, ow, -1).argmax(axis=-1)
    # One-hot of the winning position per window: the gradient goes to one input only.
    cols = (arg[..., None] == np.arange(ksize[0] * ksize[1])).reshape(n, c, oh, ow, *ksize)
    cols = cols * g[..., None, None]
    return _scatter_windows(cols, x.shape, pads, ksize, strides, (1, 1), oh, ow, x.dtype)


def _avg_counts(shape, ksize, strides, pads, oh, ow, exclusive, dtype):
    if not exclusive:
        return np.asarray(ksize[0] * ksize[1], dtype=dtype)
    ones = _pad(np.ones((1, 1) + tuple(shape[2:]), dtype=dtype), pads)
    return _windows(ones, ksize, strides, (1, 1), oh, ow).sum(axis=(4, 5))


def _avg_pool_kernel(x, ksize=(2, 2), strides=(2, 2), paddings=(0, 0, 0, 0), ceil_mode=False, exclusive=True):
    pads, oh, ow = _pool_geometry("avg_pool2d", x.shape, ksize, strides, paddings, ceil_mode)
    win = _windows(_pad(x, pads), ksize, strides, (1, 1), oh, ow)
    total = win.sum(axis=(4, 5))
    return (total / _avg_counts(x.shape, ksize, strides, pads, oh, ow, exclusive, x.dtype)).astype(x.dtype)


def _avg_pool_grad_kernel(x, g, ksize=(2, 2), strides=(2, 2), paddings=(0, 0, 0, 0), ceil_mode=False,
                          exclusive=True):
    pads, oh, ow = _pool_geometry("avg_pool2d", x.shape, ksize, strides, paddings, ceil_mode)
    share = g / _avg_counts(x.shape, ksize, strides, pads, oh, ow, exclusive, g.dtype)
    cols = np.broadcast_to(share[..., None, None], share.shape + tuple(ksize))
    return _scatter_windows(cols, x.shape, pads, ksize, strides, (1, 1), oh, ow, x.dtype)


def_op("max_pool2d", ["X"], ["Out"], attrs=dict(_POOL_ATTRS), kernel=_max_pool_kernel,
       infer=_pool_infer("max_pool2d"),
       grad=lambda ctx: [apply("max_pool2d_grad", ctx.inputs[0], ctx.out_grads[0], **ctx.attrs)],
       onnx="pool", functional=["max_pool2d"], doc="2-D max pooling, NCHW.")
def_op("max_pool2d_grad", ["X", "OutGrad"], ["XGrad"], attrs=dict(_POOL_ATTRS), kernel=_max_pool_grad_kernel,
       infer=lambda x, g, **_: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY,
       doc="Routes each window's gradient to its maximum.")
def_op("avg_pool2d", ["X"], ["Out"], attrs=dict(_POOL_ATTRS), kernel=_avg_pool_kernel,
       infer=_pool_infer("avg_pool2d"),
       grad=lambda ctx: [apply("avg_pool2d_grad", ctx.inputs[0], ctx.out_grads[0], **ctx.attrs)],
       onnx="pool", functional=["avg_pool2d"],
       doc="2-D average pooling, NCHW (exclusive: padding is not counted, Paddle's default).")
def_op("avg_pool2d_grad", ["X", "OutGrad"], ["XGrad"], attrs=dict(_POOL_ATTRS), kernel=_avg_pool_grad_kernel,
       infer=lambda x, g, **_: Meta(x.shape, x.dtype), no_onnx=GRAD_ONLY, doc="Spreads each window's gradient evenly.")

