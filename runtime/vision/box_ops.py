"""paddle.vision.ops' anchor arithmetic: ``box_coder`` (boxes to and from centre-size offsets against
prior boxes) and ``prior_box`` (SSD's prior boxes of a feature map).

``box_coder`` is a composite of elementwise ops in the order Paddle's CPU kernel computes, so its values
are Paddle's (to a unit or two in the last place: ``exp`` and ``log`` differ) and it has gradients, eagerly and in Programs.
``prior_box`` reads only the sizes of its two inputs: one op computes the boxes from them, so a
converted SSD head serves feature maps of any size.
"""

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, composite, def_op
from ..ops.common import constant
from ..ops.indexing import getitem
from ..ops.join_split import stack
from ..ops.math import divide, scale
from ..ops.shape import unsqueeze

__all__ = ["box_coder", "prior_box"]

_CODES = ("encode_center_size", "decode_center_size")


def _column(t, k, lead=None):
    """Column ``k`` of the last axis of ``t``; with ``lead`` (0 or 1), unsqueezed there to broadcast."""
    col = getitem(t, (Ellipsis, k))
    return col if lead is None else unsqueeze(col, lead)


def _centre_size(boxes, norm, lead=None):
    """(centre x, centre y, width, height) of x1, y1, x2, y2 boxes, Paddle's prior-box way: width
    x2 - x1 (+ 1 on pixel boxes), centre x1 + width / 2."""
    x0, y0, x1, y1 = (_column(boxes, k, lead) for k in range(4))
    w, h = scale(apply("subtract", x1, x0), 1.0, bias=norm), scale(apply("subtract", y1, y0), 1.0, bias=norm)
    return apply("add", x0, scale(w, 0.5)), apply("add", y0, scale(h, 0.5)), w, h


def _variances(prior_box_var, dt, lead):
    """The four variances: columns of a [M, 4] tensor (broadcasting like the priors), or constants."""
    if prior_box_var is None:
        raise TypeError("box_coder: prior_box_var must be a [M, 4] Tensor or a list of 4 variances, got None")
    if isinstance(prior_box_var, (list, tuple)):
        if len(prior_box_var) != 4:
            raise ValueError(f"box_coder: prior_box_var as a list takes 4 variances, got {list(prior_box_var)}")
        return [constant(float(np.float32(v)), dt) for v in prior_box_var]  # Paddle: a float32 attribute
    return [_column(prior_box_var, k, lead) for k in range(4)]


@composite("box_coder")
def box_coder(prior_box: TensorLike, prior_box_var, target_box: TensorLike, code_type: str = "encode_center_size",
              box_normalized: bool = True, axis: int = 0, name: str | None = None) -> TensorLike:
    """Encode ``target_box`` [N, 4] against ``prior_box`` [M, 4] into centre-size offsets [N, M, 4], or
    decode offsets ``target_box`` [N, M, 4] into boxes (the priors along dim 1 with ``axis=0``, along
    dim 0 with ``axis=1``). ``prior_box_var``: a [M, 4] tensor or a list of 4 variances; boxes are
    x1, y1, x2, y2, one pixel wider than x2 - x1 unless ``box_normalized``."""
    if code_type not in _CODES:
        raise ValueError(f"box_coder: code_type must be one of {list(_CODES)}, got {code_type!r}")
    dt = str(target_box.dtype)
    norm = 0.0 if box_normalized else 1.0
    if code_type == "encode_center_size":
        if len(target_box.shape) != 2:
            raise ValueError(f"box_coder: encoding takes target_box [N, 4], got shape {list(target_box.shape)}")
        pcx, pcy, pw, ph = _centre_size(prior_box, norm, 0)                       # [1, M]
        t0, t1, t2, t3 = (_column(target_box, k, 1) for k in range(4))             # [N, 1]
        tcx, tcy = scale(apply("add", t2, t0), 0.5), scale(apply("add", t3, t1), 0.5)
        tw, th = scale(apply("subtract", t2, t0), 1.0, bias=norm), scale(apply("subtract", t3, t1), 1.0, bias=norm)
        out = [divide(apply("subtract", tcx, pcx), pw), divide(apply("subtract", tcy, pcy), ph),
               apply("log", apply("abs", divide(tw, pw))), apply("log", apply("abs", divide(th, ph)))]
        return stack([divide(o, v) for o, v in zip(out, _variances(prior_box_var, dt, 0))], -1)
    if len(target_box.shape) != 3:
        raise ValueError(f"box_coder: decoding takes target_box [N, M, 4], got shape {list(target_box.shape)}")
    if axis not in (0, 1):
        raise ValueError(f"box_coder: axis must be 0 or 1, got {axis}")
    lead = 0 if axis == 0 else 1  # the priors broadcast along the other dim of the offsets
    pcx, pcy, pw, ph = _centre_size(prior_box, norm, lead)
    t = [_column(target_box, k) for k in range(4)]
    t = [apply("multiply", v, tk) for v, tk in zip(_variances(prior_box_var, dt, lead), t)]
    cx = apply("add", apply("multiply", t[0], pw), pcx)
    cy = apply("add", apply("multiply", t[1], ph), pcy)
    half_w = scale(apply("multiply", apply("exp", t[2]), pw), 0.5)
    half_h = scale(apply("multiply", apply("exp", t[3]), ph), 0.5)
    return stack([apply("subtract", cx, half_w), apply("subtract", cy, half_h),
                  scale(apply("add", cx, half_w), 1.0, bias=-norm), scale(apply("add", cy, half_h), 1.0, bias=-norm)],
                 -1)


# -- prior_box -------------------------------------------------------------------------------------------
def _expand_ratios(aspect_ratios, flip):
    """Paddle's ExpandAspectRatios: 1 first, each new ratio (and its inverse with ``flip``) once; float32
    values, as Paddle's attributes are."""
    f = np.float32
    out = [f(1.0)]
    for ar in aspect_ratios:
        ar = f(ar)
        if all(abs(ar - o) >= 1e-6 for o in out):
            out.append(ar)
            if flip:
                out.append(f(1.0 / float(ar)))
    return out


def _num_priors(min_sizes, max_sizes, aspect_ratios, flip):
    return len(_expand_ratios(aspect_ratios, flip)) * len(min_sizes) + len(max_sizes)


def _prior_box_kernel(input, image, min_sizes=(), max_sizes=(), aspect_ratios=(1.0,),  # noqa: A002
                      variances=(0.1, 0.1, 0.2, 0.2), flip=False, clip=False, step_w=0.0, step_h=0.0, offset=0.5,
                      min_max_aspect_ratios_order=False):
    # the sizes in float32 (Paddle's attributes are float), the positions in the input's type
    f32, f = np.float32, input.dtype.type if input.dtype.kind == "f" else np.float32
    fh, fw = input.shape[2], input.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    if step_w == 0 or step_h == 0:
        sw, sh = f(iw) / f(fw), f(ih) / f(fh)
    else:
        sw, sh = f(f32(step_w)), f(f32(step_h))
    ratios = _expand_ratios(aspect_ratios, flip)
    sizes = []  # (half width, half height) of each prior of a cell, in Paddle's order
    for s, m in enumerate(min_sizes):
        m = f32(m)
        by_ratio = [(m * np.sqrt(ar) / f32(2), m / np.sqrt(ar) / f32(2)) for ar in ratios]
        big = []
        if max_sizes:
            side = np.sqrt(m * f32(max_sizes[s])) / f32(2)
            big = [(side, side)]
        if min_max_aspect_ratios_order:
            half = m / f32(2)
            sizes += [(half, half)] + big + [wh for ar, wh in zip(ratios, by_ratio) if abs(ar - 1.0) >= 1e-6]
        else:
            sizes += by_ratio + big
    bw = np.array([s[0] for s in sizes], f)
    bh = np.array([s[1] for s in sizes], f)
    cx = ((np.arange(fw, dtype=f) + f(f32(offset))) * sw)[None, :, None]
    cy = ((np.arange(fh, dtype=f) + f(f32(offset))) * sh)[:, None, None]
    shape = (fh, fw, len(sizes))
    boxes = np.stack([np.broadcast_to((cx - bw) / f(iw), shape), np.broadcast_to((cy - bh) / f(ih), shape),
                      np.broadcast_to((cx + bw) / f(iw), shape), np.broadcast_to((cy + bh) / f(ih), shape)], -1)
    if clip:
        boxes = np.clip(boxes, f(0), f(1))
    var = np.broadcast_to(np.asarray(variances, f32).astype(f), boxes.shape)
    return boxes.astype(input.dtype), np.ascontiguousarray(var).astype(input.dtype)


def _prior_box_infer(input, image, min_sizes=(), max_sizes=(), aspect_ratios=(1.0,), flip=False, **attrs):
    shape = [input.shape[2], input.shape[3], _num_priors(min_sizes, max_sizes, aspect_ratios, flip), 4]
    return Meta(shape, input.dtype), Meta(shape, input.dtype)


def_op("prior_box", ["Input", "Image"], ["Boxes", "Variances"],
       attrs={"min_sizes": (), "max_sizes": (), "aspect_ratios": (1.0,), "variances": (0.1, 0.1, 0.2, 0.2),
              "flip": False, "clip": False, "step_w": 0.0, "step_h": 0.0, "offset": 0.5,
              "min_max_aspect_ratios_order": False},
       kernel=_prior_box_kernel, infer=_prior_box_infer, no_onnx="SSD prior boxes have no ONNX node; not lowered",
       doc="SSD's prior boxes of every cell of a feature map and their variances (Paddle's prior_box).")


def _floats(v):
    return [float(v)] if isinstance(v, (int, float)) else [float(a) for a in v]


def prior_box(input: TensorLike, image: TensorLike, min_sizes, max_sizes=None, aspect_ratios=(1.0,),  # noqa: A002
              variance=(0.1, 0.1, 0.2, 0.2), flip: bool = False, clip: bool = False, steps=(0.0, 0.0),
              offset: float = 0.5, min_max_aspect_ratios_order: bool = False,
              name: str | None = None) -> tuple[TensorLike, TensorLike]:
    """``(boxes, variances)``, each [H, W, num_priors, 4]: the prior boxes (x1, y1, x2, y2 as fractions
    of ``image`` [N, C, IH, IW]) centred on each cell of the feature map ``input`` [N, C, H, W], one per
    min size and aspect ratio (and per max size), and ``variance`` repeated."""
    min_sizes, aspect_ratios = _floats(min_sizes), _floats(aspect_ratios)
    max_sizes = [] if max_sizes is None else _floats(max_sizes)
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise ValueError(f"prior_box: max_sizes {max_sizes} must pair with min_sizes {min_sizes}")
    steps = _floats(steps)
    if len(steps) != 2 or len(_floats(variance)) != 4:
        raise ValueError(f"prior_box: steps takes 2 numbers and variance 4, got {steps} and {variance}")
    return tuple(apply("prior_box", input, image, min_sizes=tuple(min_sizes), max_sizes=tuple(max_sizes),
                       aspect_ratios=tuple(aspect_ratios), variances=tuple(_floats(variance)), flip=bool(flip),
                       clip=bool(clip), step_w=steps[0], step_h=steps[1], offset=float(offset),
                       min_max_aspect_ratios_order=bool(min_max_aspect_ratios_order)))
