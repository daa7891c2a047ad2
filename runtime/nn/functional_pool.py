"""``F.max_pool2d``/``max_pool3d``/``avg_pool2d``/``avg_pool3d`` and ``F.max_unpool1d``/``2d``/``3d``
(Paddle's argument forms over the pooling ops of runtime/ops/nn_conv.py and nn_pool_index.py);
re-exported by ``functional``.

'SAME'/'VALID' paddings become explicit ones here (Paddle's SAME: ``ceil(size / stride)`` outputs,
the odd padding after), so the ops and their ONNX lowerings only ever see explicit paddings.
"""
import math

from ..dispatch import apply
from ..hints import IntOrOne, IntOrPair, IntOrTriple, TensorLike
from ..ops.nn_conv import _resolve_pads


def _pool_args(op, x, kernel_size, stride, padding, ceil_mode, data_format):
    """(channels last?, ksize, strides, explicit pads) in Paddle's forms, checked as Paddle does."""
    from .functional import _channel_last, _ntuple, _paddings
    nd = int(op[-2])
    last = _channel_last(data_format, nd, op)
    ksize = _ntuple(kernel_size, nd, "kernel_size")
    strides = ksize if stride is None else _ntuple(stride, nd, "stride")
    pads, algo = _paddings(padding, nd, last)
    if algo == "VALID" and ceil_mode:
        raise ValueError(f"{op}: when padding is 'VALID', ceil_mode must be False (as in Paddle)")
    if algo != "EXPLICIT":
        if len(x.shape) != nd + 2:
            raise ValueError(f"{op}: the input must be {nd + 2}-D ({data_format}), got shape {list(x.shape)}")
        spatial = list(x.shape[1:-1] if last else x.shape[2:])
        pads = _resolve_pads(spatial, ksize, strides, [1] * nd, pads, algo)
    return last, ksize, strides, pads


def _pool(op, x, kernel_size, stride, padding, ceil_mode, exclusive, data_format):
    from .functional import _to_channels_first, _to_channels_last
    nd = int(op[-2])
    last, ksize, strides, pads = _pool_args(op, x, kernel_size, stride, padding, ceil_mode, data_format)
    if last:
        x = _to_channels_first(x, nd)
    out = apply(op, x, ksize=ksize, strides=strides, paddings=pads, ceil_mode=bool(ceil_mode),
                exclusive=bool(exclusive))
    return _to_channels_last(out, nd) if last else out


def _max_pool(nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    op = f"max_pool{nd}d"
    if not return_mask:
        return _pool(op, x, kernel_size, stride, padding, ceil_mode, True, data_format)
    if data_format != ("NCHW" if nd == 2 else "NCDHW"):
        raise ValueError(f"When setting return_mask to true, data_format must be set to "
                         f"{'NCHW' if nd == 2 else 'NCDHW'} in API:{op}")
    if isinstance(padding, str) and padding.upper() == "SAME":
        # Paddle's with-index kernel drops SAME's padding (pads 0): neither that nor real SAME is guessed
        raise ValueError(f"{op}: padding='SAME' with return_mask=True is not supported (Paddle pools "
                         "unpadded there); pass explicit paddings")
    _, ksize, strides, pads = _pool_args(op, x, kernel_size, stride, padding, ceil_mode, data_format)
    if pads[0::2] != pads[1::2]:
        raise ValueError(f"{op}: return_mask=True takes the same padding before and after each dim "
                         f"(as Paddle's), got {pads}")
    out, mask = apply(f"{op}_with_index", x, ksize=ksize, strides=strides, paddings=pads, ceil_mode=bool(ceil_mode))
    return out, mask


def max_pool2d(x: TensorLike, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair | str = 0,
               return_mask: bool = False, ceil_mode: bool = False, data_format: str = "NCHW",
               name: str | None = None) -> TensorLike:
    """2-D max pooling of an NCHW (or NHWC) input; ``stride`` defaults to ``kernel_size``. ``return_mask``
    (NCHW only) also returns each maximum's flat index ``h * W + w`` in the input (int32)."""
    return _max_pool(2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x: TensorLike, kernel_size: IntOrTriple, stride: IntOrTriple | None = None,
               padding: IntOrTriple | str = 0, return_mask: bool = False, ceil_mode: bool = False,
               data_format: str = "NCDHW", name: str | None = None) -> TensorLike:
    """3-D max pooling of an NCDHW (or NDHWC) input; ``stride`` defaults to ``kernel_size``. ``return_mask``
    (NCDHW only) also returns each maximum's flat index ``(d * H + h) * W + w`` in the input (int32)."""
    return _max_pool(3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def _avg_pool(nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format):
    out = _pool(f"avg_pool{nd}d", x, kernel_size, stride, padding, ceil_mode, exclusive, data_format)
    if divisor_override is None:
        return out
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, float)):
        raise ValueError(f"Excepted (<class 'int'>, <class 'float'>) type for divisor_override but received type: "
                         f"{type(divisor_override)}")
    from .functional import _ntuple
    from ..ops.common import constant
    # Paddle's formula: the pooled average times the kernel's size, over the divisor
    k = math.prod(_ntuple(kernel_size, nd, "kernel_size"))
    out = apply("multiply", out, constant(float(k), out.dtype))
    return apply("divide", out, constant(float(divisor_override), out.dtype))


def avg_pool2d(x: TensorLike, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair | str = 0,
               ceil_mode: bool = False, exclusive: bool = True, divisor_override: float | None = None,
               data_format: str = "NCHW", name: str | None = None) -> TensorLike:
    """2-D average pooling of an NCHW (or NHWC) input; ``exclusive`` leaves padding out of the average,
    ``divisor_override`` divides each window's sum by itself instead (Paddle's ``avg * kh * kw / d``)."""
    return _avg_pool(2, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)


def avg_pool3d(x: TensorLike, kernel_size: IntOrTriple, stride: IntOrTriple | None = None,
               padding: IntOrTriple | str = 0, ceil_mode: bool = False, exclusive: bool = True,
               divisor_override: float | None = None, data_format: str = "NCDHW", name: str | None = None) -> TensorLike:
    """3-D average pooling of an NCDHW (or NDHWC) input; ``exclusive`` leaves padding out of the average,
    ``divisor_override`` divides each window's sum by itself instead (Paddle's ``avg * kd * kh * kw / d``)."""
    return _avg_pool(3, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)


# -- max unpooling -----------------------------------------------------------------------------
def _unpool_size(what, x, ksize, strides, pads, output_size):
    """Paddle's ``_unpool_output_size``: ``(in - 1) * stride + k - 2 * pad`` per dim, or ``output_size``
    (spatial, or with N and C in front) within a stride of it."""
    nd = len(ksize)
    spatial = list(x.shape[2:])
    if any(s < 0 for s in spatial):
        raise ValueError(f"{what}: the input's spatial dims must be known, got shape {list(x.shape)}")
    default = [(spatial[d] - 1) * strides[d] + ksize[d] - 2 * pads[d] for d in range(nd)]
    if output_size is None:
        return default
    if not isinstance(output_size, (list, tuple)):
        raise TypeError(f"Required output_size is None|list|tuple, but received {output_size}")
    size = [int(s) for s in output_size]
    if len(size) == nd + 2:
        size = size[2:]
    if len(size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                         f"length of '{len(size)}'")
    for d in range(nd):
        lo, hi = default[d] - strides[d], default[d] + strides[d]
        if not lo < size[d] < hi:
            raise ValueError(f'invalid output_size "{size}" (dim {d} must be between {lo} and {hi})')
    return size


def _max_unpool(nd, x, indices, kernel_size, stride, padding, data_format, output_size):
    from .functional import _ntuple
    what = f"max_unpool{nd}d"
    layout = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    if data_format != layout:
        raise ValueError(f"Attr(data_format) should be '{layout}'. Received Attr(data_format): {data_format}.")
    for name, t in (("x", x), ("indices", indices)):
        if len(t.shape) != nd + 2:
            raise ValueError(f"{what}: {name} must be {nd + 2}-D ({layout}), got shape {list(t.shape)}")
    ksize = _ntuple(kernel_size, nd, "kernel_size")
    strides = ksize if stride is None else _ntuple(stride, nd, "stride")
    if isinstance(padding, str) or not isinstance(padding, int) and len(padding) != nd:
        raise ValueError(f"{what}: padding must be an int or {nd} ints, got {padding!r}")
    pads = _ntuple(padding, nd, "padding")
    size = _unpool_size(what, x, ksize, strides, pads, output_size)
    return apply("unpool", x, indices, output_size=size)


def max_unpool1d(x: TensorLike, indices: TensorLike, kernel_size: IntOrOne, stride: IntOrOne | None = None,
                 padding: IntOrOne = 0, data_format: str = "NCL", output_size: list | None = None,
                 name: str | None = None) -> TensorLike:
    """Inverse of ``max_pool1d(return_mask=True)``: each value of the NCL input written at its index in a
    zero output of length ``(L - 1) * stride + kernel_size - 2 * padding`` (or ``output_size``)."""
    return _max_unpool(1, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x: TensorLike, indices: TensorLike, kernel_size: IntOrPair, stride: IntOrPair | None = None,
                 padding: IntOrPair = 0, data_format: str = "NCHW", output_size: list | None = None,
                 name: str | None = None) -> TensorLike:
    """Inverse of ``max_pool2d(return_mask=True)``: each value of the NCHW input written at its flat index
    ``h * W_out + w`` in a zero output of Paddle's size (or ``output_size``)."""
    return _max_unpool(2, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x: TensorLike, indices: TensorLike, kernel_size: IntOrTriple, stride: IntOrTriple | None = None,
                 padding: IntOrTriple = 0, data_format: str = "NCDHW", output_size: list | None = None,
                 name: str | None = None) -> TensorLike:
    """Inverse of ``max_pool3d(return_mask=True)``: each value of the NCDHW input written at its flat index
    in a zero output of Paddle's size (or ``output_size``)."""
    return _max_unpool(3, x, indices, kernel_size, stride, padding, data_format, output_size)
