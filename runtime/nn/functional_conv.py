"""``F.conv1d_transpose``, ``F.conv2d_transpose`` and ``F.conv3d_transpose`` (Paddle's argument forms over
the ``conv{2,3}d_transpose`` ops of runtime/ops/nn_conv_transpose.py; 1-D is 2-D on height 1, as
``conv1d``); re-exported by ``functional``."""
from ..dispatch import apply
from ..hints import IntOrPair, IntOrTriple, TensorLike
from ..ops.math import add
from ..ops.nn_conv import _resolve_pads
from ..registry import composite


def _conv_transpose(nd, x, weight, bias, stride, padding, output_padding, dilation, groups, output_size, data_format):
    from .functional import _channel_last, _ntuple, _paddings, _to_channels_first, _to_channels_last
    what = f"conv{nd}d_transpose"
    last = _channel_last(data_format, nd, what)
    pads, algo = _paddings(padding, nd, last)
    strides, dilations = _ntuple(stride, nd, "stride"), _ntuple(dilation, nd, "dilation")
    out_pad = _ntuple(output_padding, nd, "output_padding")
    if len(x.shape) != nd + 2:
        raise ValueError(f"{what}: the input must be {nd + 2}-D ({data_format}), got shape {list(x.shape)}")
    spatial = list(x.shape[1:-1] if last else x.shape[2:])
    if algo != "EXPLICIT":
        if algo == "SAME" and any(d != 1 for d in dilations):
            # Paddle silently convolves undilated under SAME; neither that nor a dilated SAME is guessed
            raise ValueError(f"{what}: padding='SAME' with dilation {dilations} is not supported (Paddle ignores "
                             "the dilation there); pass explicit paddings for a dilated transposed convolution")
        # Paddle's SAME pads are those a forward conv of the *input's* size would take
        pads = _resolve_pads(spatial, list(weight.shape[2:]), strides, dilations, pads, algo)
    if output_size is not None:
        if any(out_pad):
            raise ValueError(f"{what}: output_padding option is mutually exclusive with output_size")
        if min(spatial) < 0 or len(weight.shape) != nd + 2:
            raise ValueError(f"{what}: output_size needs a {nd + 2}-D input with known spatial dims")
        want = _ntuple(output_size, nd, "output_size")
        for i, (w, n, s, d, k) in enumerate(zip(want, spatial, strides, dilations, weight.shape[2:])):
            least = (n - 1) * s - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
            if not least <= w < least + s:
                raise ValueError(f"{what}: output_size {want} must be within a stride of the inferred size per dim "
                                 f"(the output_padding it sets must be in [0, stride)); dim {i} is {w}, the "
                                 f"inferred size {least}, the stride {s}")
            out_pad[i] = w - least
    if last:
        x = _to_channels_first(x, nd)
    out = apply(what, x, weight, strides=strides, paddings=pads, output_padding=out_pad, dilations=dilations,
                groups=int(groups))
    if bias is not None:
        out = add(out, apply("reshape", bias, shape=[1, -1] + [1] * nd))
    return _to_channels_last(out, nd) if last else out


def conv2d_transpose(x: TensorLike, weight: TensorLike, bias: TensorLike | None = None, stride: IntOrPair = 1,
                     padding: IntOrPair | str = 0, output_padding: IntOrPair = 0, dilation: IntOrPair = 1,
                     groups: int = 1, output_size: IntOrPair | None = None, data_format: str = "NCHW",
                     name: str | None = None) -> TensorLike:
    """2-D transposed convolution of an NCHW (or NHWC) input with ``weight`` [in_c, out_c/groups, kh, kw], plus
    ``bias``. ``padding`` is an int, 2 or 4 ints, one pair per input dim, or "SAME"/"VALID"; ``output_size``
    [h, w] picks the output size among those the stride allows (it sets ``output_padding``)."""
    return _conv_transpose(2, x, weight, bias, stride, padding, output_padding, dilation, groups, output_size,
                           data_format)


def conv3d_transpose(x: TensorLike, weight: TensorLike, bias: TensorLike | None = None, stride: IntOrTriple = 1,
                     padding: IntOrTriple | str = 0, output_padding: IntOrTriple = 0, groups: int = 1,
                     dilation: IntOrTriple = 1, output_size: IntOrTriple | None = None, data_format: str = "NCDHW",
                     name: str | None = None) -> TensorLike:
    """3-D transposed convolution of an NCDHW (or NDHWC) input with ``weight`` [in_c, out_c/groups, kd, kh, kw],
    plus ``bias``. ``padding`` is an int, 3 or 6 ints, one pair per input dim, or "SAME"/"VALID";
    ``output_size`` [d, h, w] picks the output size among those the stride allows."""
    return _conv_transpose(3, x, weight, bias, stride, padding, output_padding, dilation, groups, output_size,
                           data_format)


@composite("conv1d_transpose", functional=["conv1d_transpose"])
def conv1d_transpose(x: TensorLike, weight: TensorLike, bias: TensorLike | None = None, stride: int = 1,
                     padding: int | list | str = 0, output_padding: int = 0, groups: int = 1, dilation: int = 1,
                     output_size: int | list | None = None, data_format: str = "NCL",
                     name: str | None = None) -> TensorLike:
    """1-D transposed convolution of an NCL (or NLC) input with ``weight`` [in_c, out_c/groups, k], plus
    ``bias`` (the upsampling layers of vocoders). ``padding`` is an int, 1 or 2 ints, or "SAME"/"VALID";
    ``output_size`` [L] picks the output length among those the stride allows."""
    from ..ops.nn_vision import _one, _pads_1d
    from ..ops.shape import squeeze, transpose, unsqueeze
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"conv1d_transpose: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    if len(x.shape) != 3 or len(weight.shape) != 3:
        raise ValueError(f"conv1d_transpose: the input must be 3-D ({data_format}) and the weight "
                         f"[in_channels, out_channels / groups, k]; got {list(x.shape)} and {list(weight.shape)}")
    if data_format == "NLC":
        x = transpose(x, [0, 2, 1])
    if output_size is not None:
        output_size = [1, int(output_size if isinstance(output_size, int) else output_size[0])]
    out = _conv_transpose(2, unsqueeze(x, 2), unsqueeze(weight, 2), bias, _one(stride, "stride"),
                          _pads_1d(padding, "conv1d_transpose"), [0, _one(output_padding, "output_padding")[1]],
                          _one(dilation, "dilation"), groups, output_size, "NCHW")
    out = squeeze(out, 2)
    return transpose(out, [0, 2, 1]) if data_format == "NLC" else out
