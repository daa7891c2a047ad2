"""paddle.vision.ops ``prior_box``: an SSD head's prior (anchor) boxes for every cell of a feature map,
normalised by the image size, with their variances; one op whose kernel reads only the feature map's
and the image's sizes (so a converted head serves images of any size), Paddle's kernel loop order."""
import math

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op


def _expand_aspect_ratios(aspect_ratios, flip):
    """Paddle's ExpandAspectRatios: 1 first, then each new ratio (and its inverse with ``flip``)."""
    out = [1.0]
    for ar in aspect_ratios:
        if any(abs(ar - a) < 1e-6 for a in out):
            continue
        out.append(float(ar))
        if flip:
            out.append(1.0 / float(ar))
    return out


def _half_sizes(min_sizes, max_sizes, ratios, min_max_order):
    """(half width, half height) of each prior of a cell, in Paddle's order."""
    out = []
    for s, m in enumerate(min_sizes):
        by_ratio = [(m * math.sqrt(ar) / 2.0, m / math.sqrt(ar) / 2.0) for ar in ratios
                    if not (min_max_order and abs(ar - 1.0) < 1e-6)]
        big = [(math.sqrt(m * max_sizes[s]) / 2.0,) * 2] if max_sizes else []
        out += ([(m / 2.0, m / 2.0)] + big + by_ratio) if min_max_order else (by_ratio + big)
    return out


_ATTRS = {"min_sizes": (), "max_sizes": (), "aspect_ratios": (1.0,), "variances": (0.1, 0.1, 0.2, 0.2),
          "flip": False, "clip": False, "step_w": 0.0, "step_h": 0.0, "offset": 0.5, "min_max_aspect_ratios_order": False}


def _prior_box_kernel(x, image, min_sizes=(), max_sizes=(), aspect_ratios=(1.0,), variances=(0.1, 0.1, 0.2, 0.2),
                      flip=False, clip=False, step_w=0.0, step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False):
    dt = np.float32 if x.dtype != np.float64 else np.float64
    fh, fw = x.shape[2], x.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    sw, sh = (iw / fw, ih / fh) if step_w == 0 or step_h == 0 else (step_w, step_h)
    half = np.array(_half_sizes(min_sizes, max_sizes, _expand_aspect_ratios(aspect_ratios, flip),
                                min_max_aspect_ratios_order), dt)  # [P, 2]
    cx = ((np.arange(fw, dtype=dt) + dt(offset)) * dt(sw))[None, :, None]
    cy = ((np.arange(fh, dtype=dt) + dt(offset)) * dt(sh))[:, None, None]
    hw, hh = half[None, None, :, 0], half[None, None, :, 1]
    boxes = np.stack(np.broadcast_arrays((cx - hw) / dt(iw), (cy - hh) / dt(ih), (cx + hw) / dt(iw),
                                         (cy + hh) / dt(ih)), -1).astype(dt)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    return boxes, np.broadcast_to(np.asarray(variances, dt), boxes.shape).copy()


def _prior_box_infer(x, image, min_sizes=(), max_sizes=(), aspect_ratios=(1.0,), flip=False,
                     min_max_aspect_ratios_order=False, **attrs):
    count = len(_half_sizes(min_sizes, max_sizes, _expand_aspect_ratios(aspect_ratios, flip),
                            min_max_aspect_ratios_order))
    shape = [x.shape[2], x.shape[3], count, 4]
    dtype = "float64" if x.dtype == "float64" else "float32"
    return Meta(shape, dtype), Meta(shape, dtype)


def_op("prior_box", ["Input", "Image"], ["Boxes", "Variances"], attrs=dict(_ATTRS), kernel=_prior_box_kernel,
       infer=_prior_box_infer, no_onnx="SSD prior boxes have no ONNX node; not lowered",
       doc="SSD prior boxes of every feature-map cell, normalised by the image size (Paddle's prior_box).")


def prior_box(input: TensorLike, image: TensorLike, min_sizes: list, max_sizes: list | None = None,
              aspect_ratios: list = (1.0,), variance: list = (0.1, 0.1, 0.2, 0.2), flip: bool = False,
              clip: bool = False, steps: list = (0.0, 0.0), offset: float = 0.5,
              min_max_aspect_ratios_order: bool = False, name: str | None = None) -> tuple[TensorLike, TensorLike]:
    """``(boxes, variances)``, each [H, W, num_priors, 4]: for every cell of ``input`` [N, C, H, W], priors
    of each of ``min_sizes`` at each aspect ratio (and the ``max_sizes`` square), centred at
    ``(cell + offset) * step`` (``steps`` 0: the image size over the map's), normalised by ``image``'s
    [N, C, H, W] size."""
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise ValueError("prior_box: max_sizes must have as many sizes as min_sizes")
    return tuple(apply("prior_box", input, image, min_sizes=tuple(float(m) for m in min_sizes),
                       max_sizes=tuple(float(m) for m in (max_sizes or ())),
                       aspect_ratios=tuple(float(a) for a in aspect_ratios),
                       variances=tuple(float(v) for v in variance), flip=bool(flip), clip=bool(clip),
                       step_w=float(steps[0]), step_h=float(steps[1]), offset=float(offset),
                       min_max_aspect_ratios_order=bool(min_max_aspect_ratios_order)))
