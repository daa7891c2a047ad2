"""``conv2d_transpose`` (NCHW) and ``conv3d_transpose`` (NCDHW): the adjoint of ``conv2d``/``conv3d``, so
the kernel is the convolution's input-gradient kernel and the gradients are the convolution itself
(for the input) and its filter gradient (for the filter).  The filter is Paddle's
``[in_channels, out_channels / groups, *kernel]``; attrs use Paddle's spelling (``paddings``
before/after per spatial dim, ``output_padding`` one per spatial dim).  'SAME'/'VALID' are resolved
to explicit paddings by ``F.conv2d_transpose``/``F.conv3d_transpose`` before the op is built.
"""
import functools

import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op
from .nn_conv import _check_rank, _conv_grad_input_kernel, _wants_grad

_ATTRS = {
    2: {"strides": [1, 1], "paddings": [0, 0, 0, 0], "output_padding": [0, 0], "dilations": [1, 1], "groups": 1},
    3: {"strides": [1, 1, 1], "paddings": [0] * 6, "output_padding": [0, 0, 0], "dilations": [1, 1, 1],
        "groups": 1},
}


def _out_size(xs, ws, strides, paddings, output_padding, dilations, groups):
    """``[N, out_channels, *spatial]`` (-1 where the input's dim is unknown), checking the arguments."""
    nd = len(strides)
    what = f"conv{nd}d_transpose"
    _check_rank(what, "input", xs, nd + 2)
    _check_rank(what, "filter", ws, nd + 2)
    if groups < 1 or (xs[1] >= 0 and xs[1] != ws[0]):
        raise ValueError(f"{what}: the input has {xs[1]} channels but the filter of shape {list(ws)} "
                         f"expects {ws[0]} (filter [in_channels, out_channels / groups, *kernel])")
    if ws[0] % groups:
        raise ValueError(f"{what}: in_channels ({ws[0]}) must be divisible by groups ({groups})")
    for op, s, d in zip(output_padding, strides, dilations):
        if not 0 <= op < max(s, d):
            raise ValueError(f"{what}: output_padding {list(output_padding)} must be non-negative and "
                             f"smaller than the stride {list(strides)} or the dilation {list(dilations)}")
    spatial = []
    for i in range(nd):
        size = xs[2 + i]
        if size < 0:
            spatial.append(-1)
            continue
        out = (size - 1) * strides[i] - paddings[2 * i] - paddings[2 * i + 1] \
            + dilations[i] * (ws[2 + i] - 1) + 1 + output_padding[i]
        if out <= 0:
            raise ValueError(f"{what}: the output size {out} along spatial dim {i} is not positive")
        spatial.append(out)
    return (xs[0], ws[1] * groups) + tuple(spatial)


def _conv_attrs(attrs):
    return {"strides": list(attrs["strides"]), "paddings": list(attrs["paddings"]),
            "dilations": list(attrs["dilations"]), "groups": int(attrs["groups"]), "padding_algorithm": "EXPLICIT"}


def _kernel(x, w, strides, paddings, output_padding, dilations, groups):
    shape = _out_size(x.shape, w.shape, strides, paddings, output_padding, dilations, groups)
    like = np.broadcast_to(np.zeros((), x.dtype), shape)  # only its shape and dtype are read
    return _conv_grad_input_kernel(x, w, like, strides, paddings, dilations, groups, "EXPLICIT")


def _infer(x, w, strides, paddings, output_padding, dilations, groups):
    return Meta(_out_size(x.shape, w.shape, strides, paddings, output_padding, dilations, groups), x.dtype)


def _grad(ctx, nd):
    x, w = ctx.inputs
    g = ctx.out_grads[0]
    conv = _conv_attrs(ctx.attrs)
    # _wants_grad: in a Program an intermediate input (a layer before this one) keeps stop_gradient=True
    gx = apply(f"conv{nd}d", g, w, **conv) if _wants_grad(x) else None
    gw = apply(f"conv{nd}d_grad_filter", g, x, w, **conv) if _wants_grad(w) else None
    return [gx, gw]


for _nd, _shape in ((2, "NCHW input and [in, out/groups, kh, kw]"), (3, "NCDHW input and [in, out/groups, kd, kh, kw]")):
    def_op(f"conv{_nd}d_transpose", ["Input", "Filter"], ["Output"], attrs=dict(_ATTRS[_nd]),
           kernel=functools.partial(_kernel, **_ATTRS[_nd]), infer=_infer,
           grad=lambda ctx, nd=_nd: _grad(ctx, nd), onnx="conv_transpose", functional=[f"conv{_nd}d_transpose"],
           doc=f"{_nd}-D transposed convolution, {_shape} filter.",
           float16_in_float32="kernel")  # its gradient: conv ops declaring float16_in_float32
