"""``conv2d_transpose`` (NCHW): the adjoint of ``conv2d``, so its kernel is conv2d's input-gradient
kernel and its gradients are conv2d itself (for the input) and conv2d's filter gradient (for the
filter).  The filter is Paddle's ``[in_channels, out_channels / groups, kh, kw]``; attrs use Paddle's
spelling (``paddings`` ``[top, bottom, left, right]``, ``output_padding`` ``[h, w]``).
"""
import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op
from .nn_conv import _check_rank, _conv_grad_input_kernel

_ATTRS = {"strides": [1, 1], "paddings": [0, 0, 0, 0], "output_padding": [0, 0], "dilations": [1, 1],
          "groups": 1}


def _out_size(xs, ws, strides, paddings, output_padding, dilations, groups):
    """``[N, out_channels, H_out, W_out]`` (-1 where the input's dim is unknown), checking the arguments."""
    _check_rank("conv2d_transpose", "input", xs, 4)
    _check_rank("conv2d_transpose", "filter", ws, 4)
    if groups < 1 or (xs[1] >= 0 and xs[1] != ws[0]):
        raise ValueError(f"conv2d_transpose: the input has {xs[1]} channels but the filter of shape {list(ws)} "
                         f"expects {ws[0]} (filter [in_channels, out_channels / groups, kh, kw])")
    if ws[0] % groups:
        raise ValueError(f"conv2d_transpose: in_channels ({ws[0]}) must be divisible by groups ({groups})")
    for op, s, d in zip(output_padding, strides, dilations):
        if not 0 <= op < max(s, d):
            raise ValueError(f"conv2d_transpose: output_padding {list(output_padding)} must be non-negative and "
                             f"smaller than the stride {list(strides)} or the dilation {list(dilations)}")
    hw = []
    for i in range(2):
        size = xs[2 + i]
        if size < 0:
            hw.append(-1)
            continue
        out = (size - 1) * strides[i] - paddings[2 * i] - paddings[2 * i + 1] \
            + dilations[i] * (ws[2 + i] - 1) + 1 + output_padding[i]
        if out <= 0:
            raise ValueError(f"conv2d_transpose: the output size {out} along spatial dim {i} is not positive")
        hw.append(out)
    return (xs[0], ws[1] * groups, hw[0], hw[1])


def _conv_attrs(attrs):
    return {"strides": list(attrs["strides"]), "paddings": list(attrs["paddings"]),
            "dilations": list(attrs["dilations"]), "groups": int(attrs["groups"]), "padding_algorithm": "EXPLICIT"}


def _kernel(x, w, strides=(1, 1), paddings=(0, 0, 0, 0), output_padding=(0, 0), dilations=(1, 1), groups=1):
    shape = _out_size(x.shape, w.shape, strides, paddings, output_padding, dilations, groups)
    like = np.broadcast_to(np.zeros((), x.dtype), shape)  # only its shape and dtype are read
    return _conv_grad_input_kernel(x, w, like, strides, paddings, dilations, groups, "EXPLICIT")


def _infer(x, w, strides=(1, 1), paddings=(0, 0, 0, 0), output_padding=(0, 0), dilations=(1, 1), groups=1):
    return Meta(_out_size(x.shape, w.shape, strides, paddings, output_padding, dilations, groups), x.dtype)


def _grad(ctx):
    x, w = ctx.inputs
    g = ctx.out_grads[0]
    conv = _conv_attrs(ctx.attrs)
    gx = None if x.stop_gradient else apply("conv2d", g, w, **conv)
    gw = None if w.stop_gradient else apply("conv2d_grad_filter", g, x, w, **conv)
    return [gx, gw]


def_op("conv2d_transpose", ["Input", "Filter"], ["Output"], attrs=dict(_ATTRS), kernel=_kernel, infer=_infer,
       grad=_grad, onnx="conv2d_transpose", functional=["conv2d_transpose"],
       doc="2-D transposed convolution, NCHW input and [in, out/groups, kh, kw] filter.")
