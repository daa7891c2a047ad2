"""``F.pad`` (Paddle's ``paddle.nn.functional.pad``) as a composite of slicing and ``concat``:
its gradient, static form and ONNX export are those of the ops it is made of."""
from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .creation import full
from .indexing import getitem
from .shape import concat, dims
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time

_MODES = ("constant", "reflect", "replicate", "circular")
_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


def _symbolic(p):
    return isinstance(p, _rt.framework.Variable)


def _pairs(pad, ndim, data_format, mode="constant", from_left=True):
    """{axis: (before, after)} from Paddle's pad list: all dims first-to-last when it has 2 * ndim
    entries (last-to-first unless ``from_left``), else (left, right, top, bottom, front, back) from the
    last spatial dim backwards; in constant mode a list of another length pads from the last dim back."""
    # an amount computed in a Program (from a dynamic dim, say) stays a tensor: constant mode
    # pads by it at run time
    pad = [p if _symbolic(p) else int(p) for p in pad]
    if len(pad) % 2:
        raise ValueError(f"pad: the pad list needs pairs (before, after), got {pad}")
    if len(pad) == 2 * ndim and from_left:
        return {a: (pad[2 * a], pad[2 * a + 1]) for a in range(ndim)}
    if mode == "constant" and len(pad) <= 2 * ndim and (len(pad) != 2 * (ndim - 2) or len(pad) == 2 * ndim):
        return {ndim - 1 - k: (pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)}
    if data_format not in _FORMATS:
        raise ValueError(f"pad: data_format must be one of {_FORMATS}, got {data_format!r}")
    if len(pad) > 2 * (ndim - 2):
        raise ValueError(f"pad: {len(pad)} pad entries for a rank-{ndim} input in {data_format}")
    if not data_format.startswith("NC") and len(pad) != 2 * (ndim - 2):
        # Paddle versions disagree on a shorter list in channels-last (its spatial dims, or the
        # last dims, channels included): refuse it rather than pick one
        raise ValueError(f"pad: {data_format} needs {2 * (ndim - 2)} pad entries (two per spatial dim) "
                         f"or {2 * ndim} (two per dim), got {len(pad)}")
    last = ndim - 1 if data_format.startswith("NC") else ndim - 2  # the last spatial dim
    return {last - k: (pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)}


def _take(x, axis, sl):
    key = [slice(None)] * x.ndim
    key[axis] = sl
    return getitem(x, tuple(key))


def _border(x, axis, n, before, mode, value):
    if mode == "constant":
        sizes = dims(x)
        sizes[axis] = n
        return full(sizes, value, dtype=x.dtype)
    if mode == "replicate":
        edge = _take(x, axis, slice(0, 1) if before else slice(-1, None))
        return concat([edge] * n, axis=axis)
    if mode == "circular":
        size = x.shape[axis]
        if n > size:  # wraps around more than once (Paddle's circular mode allows it); a size known only
            # when the Program runs may be as small as 1: n copies cover any size
            x = concat([x] * (-(-n // size) if size >= 0 else n), axis=axis)
        return _take(x, axis, slice(-n, None) if before else slice(0, n))
    # reflect: the n entries next to the edge, mirrored (the edge itself is not repeated)
    return _take(x, axis, slice(n, 0, -1) if before else slice(-2, -n - 2, -1))


@composite("pad", functional=["pad"])
def pad(x: TensorLike, pad: list[int], mode: str = "constant", value: float = 0.0, data_format: str | None = None,
        pad_from_left_axis: bool = True, name: str | None = None) -> TensorLike:
    """Pad ``x`` by ``pad`` (Paddle's layout of the list) with ``mode`` "constant" (``value``),
    "reflect", "replicate" or "circular"."""
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {_MODES}, got {mode!r}")
    if data_format is None:  # Paddle's default: channels first, named by rank
        data_format = {3: "NCL", 5: "NCDHW"}.get(x.ndim, "NCHW")
    for axis, (before, after) in sorted(_pairs(pad, x.ndim, data_format, mode, bool(pad_from_left_axis)).items()):
        if _symbolic(before) or _symbolic(after):
            if mode != "constant":
                raise ValueError(f"pad: mode {mode!r} needs the pad amounts as Python ints while a Program "
                                 "is built (only 'constant' takes amounts known at run time)")
            x = concat([_border(x, axis, before, True, mode, value), x,
                        _border(x, axis, after, False, mode, value)], axis=axis)
            continue
        # a negative amount crops (Paddle's): pad by the positive amounts first, then cut the rest away
        crop = (max(-before, 0), max(-after, 0))
        before, after = max(before, 0), max(after, 0)
        if mode == "reflect" and max(before, after) >= x.shape[axis] >= 0:
            raise ValueError(f"pad: reflect padding {before, after} must be smaller than dim {axis} "
                             f"({x.shape[axis]})")
        if mode == "reflect" and max(before, after) > 0 > x.shape[axis]:  # a size known only when it runs
            ok = _rt.greater_than(_rt.shape(x)[axis], full([], max(before, after), dtype="int64"))
            apply("assert", ok, [], error="ValueError", message=f"pad: reflect padding {before, after} must be "
                  f"smaller than dim {axis} (of shape {list(x.shape)} when the Program runs)")
        parts = ([_border(x, axis, before, True, mode, value)] if before else []) + [x] + \
                ([_border(x, axis, after, False, mode, value)] if after else [])
        if len(parts) > 1:
            x = concat(parts, axis=axis)
        if crop != (0, 0):
            x = _take(x, axis, slice(crop[0], -crop[1] if crop[1] else None))
    return x
