"""``F.conv3d`` (Paddle's ``paddle.nn.functional.conv3d``) built from ``conv2d``: each output depth is the
sum, over the filter's depth taps, of a 2-D convolution of one input depth slice with that tap's 2-D
filter. Eager and static run the same composite (so they agree bitwise) and gradients come from the
conv2d, slice, add and stack ops it is made of."""
from ..hints import IntOrPair, TensorLike
from ..registry import composite
from .creation import zeros_like
from .indexing import getitem
from .math import add
from .shape import reshape, stack


def _three(v, what):
    v = [int(v)] * 3 if isinstance(v, int) else [int(d) for d in v]
    if len(v) != 3:
        raise ValueError(f"conv3d: {what} must be an int or 3 ints, got {v}")
    return v


def _pads(padding):
    """Paddle's conv3d ``padding`` -> [front, back, top, bottom, left, right]."""
    if isinstance(padding, str):
        if padding.upper() != "VALID":
            raise NotImplementedError(f"conv3d: padding={padding!r} is not supported; give explicit paddings or 'VALID'")
        return [0] * 6
    if isinstance(padding, int):
        return [padding] * 6
    p = list(padding)
    if p and isinstance(p[0], (list, tuple)):  # [[0,0],[0,0],[f,b],[t,b],[l,r]] (NCDHW)
        p = [int(d) for pair in p[2:] for d in pair]
    p = [int(d) for d in p]
    if len(p) == 3:
        return [p[0], p[0], p[1], p[1], p[2], p[2]]
    if len(p) == 6:
        return p
    raise ValueError(f"conv3d: padding must be an int, 3 or 6 ints, or 'VALID', got {padding!r}")


@composite("conv3d", functional=["conv3d"])
def conv3d(x: TensorLike, weight: TensorLike, bias: TensorLike | None = None, stride: IntOrPair = 1,
           padding: IntOrPair | str = 0, dilation: IntOrPair = 1, groups: int = 1, data_format: str = "NCDHW", name: str | None = None) -> TensorLike:
    """3-D convolution of an NCDHW input with ``weight`` [out_c, in_c/groups, kd, kh, kw], plus ``bias``."""
    from ..nn.functional import conv2d  # nn.functional imports the op modules: resolved on use
    if data_format != "NCDHW":
        raise NotImplementedError(f"conv3d: only data_format='NCDHW' is supported, got {data_format!r}")
    if len(x.shape) != 5 or len(weight.shape) != 5:
        raise ValueError(f"conv3d: input must be NCDHW and weight [out_c, in_c/groups, kd, kh, kw], got "
                         f"{list(x.shape)} and {list(weight.shape)}")
    depth, taps = int(x.shape[2]), int(weight.shape[2])
    if depth < 0:
        raise NotImplementedError("conv3d: the input's depth (dim 2) must be known when the Program is built")
    (sd, sh, sw), (dd, dh, dw) = _three(stride, "stride"), _three(dilation, "dilation")
    front, back, *hw_pads = _pads(padding)
    out_depth = (depth + front + back - dd * (taps - 1) - 1) // sd + 1
    if out_depth < 1:
        raise ValueError(f"conv3d: the output depth would be {out_depth} (input depth {depth}, filter depth {taps})")
    outs = []
    for o in range(out_depth):
        acc = None
        for k in range(taps):
            i = o * sd - front + k * dd
            if 0 <= i < depth:  # a tap on the zero padding adds nothing
                y = conv2d(getitem(x, (slice(None), slice(None), i)), getitem(weight, (slice(None), slice(None), k)),
                           stride=[sh, sw], padding=hw_pads, dilation=[dh, dw], groups=groups)
                acc = y if acc is None else add(acc, y)
        if acc is None:  # every tap on the padding
            acc = zeros_like(conv2d(getitem(x, (slice(None), slice(None), 0)),
                                    getitem(weight, (slice(None), slice(None), 0)),
                                    stride=[sh, sw], padding=hw_pads, dilation=[dh, dw], groups=groups))
        outs.append(acc)
    out = stack(outs, axis=2)
    return out if bias is None else add(out, reshape(bias, [1, -1, 1, 1, 1]))
