"""paddle.vision.ops.generate_proposals: a region proposal network's proposals, as Paddle 3.3's CPU
kernel makes them.

Per image: the ``pre_nms_top_n`` best-scoring anchors are decoded with their deltas (widths and heights
clipped at exp(log(1000 / 16))), clipped to the image, the boxes smaller than ``min_size`` (at least 1)
dropped, and greedy NMS (threshold decaying by ``eta`` while above 0.5) keeps at most
``post_nms_top_n`` of them, best first; an image left with no box gets one all-zero box of score 0.
How many boxes survive depends on the data: one op returns them all, with no gradient (Paddle gives
none), and a Program built with it serves any number. Anchors of equal scores may be ranked otherwise
than Paddle's unstable sorts rank them; with ``nms_thresh <= 0`` the boxes come best first (Paddle's
order is then its partial sort's).
"""
import math

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op
from .nms_ops import _iou_matrix

__all__ = ["generate_proposals"]

_CLIP = math.log(1000.0 / 16.0)


def _decode(anchors, deltas, var, offset):
    """Paddle's BoxCoder of generate_proposals (float steps in its order)."""
    dt = anchors.dtype.type
    aw = anchors[:, 2] - anchors[:, 0] + offset
    ah = anchors[:, 3] - anchors[:, 1] + offset
    acx, acy = anchors[:, 0] + dt(0.5) * aw, anchors[:, 1] + dt(0.5) * ah
    cx = var[:, 0] * deltas[:, 0] * aw + acx
    cy = var[:, 1] * deltas[:, 1] * ah + acy
    w = np.exp(np.minimum(var[:, 2] * deltas[:, 2], dt(_CLIP))) * aw
    h = np.exp(np.minimum(var[:, 3] * deltas[:, 3], dt(_CLIP))) * ah
    return np.stack([cx - w / dt(2), cy - h / dt(2), cx + w / dt(2) - offset, cy + h / dt(2) - offset], 1)


def _greedy(boxes, threshold, eta, normalized):
    """Paddle's NMS on boxes already ranked best first: indices kept, in order."""
    iou = _iou_matrix(boxes, normalized)
    kept, limit = [], threshold
    for i in range(len(boxes)):
        if all(iou[i, k] <= limit for k in kept):
            kept.append(i)
            if eta < 1 and limit > 0.5:
                limit *= limit.dtype.type(np.float32(eta))  # Paddle: a float32 attribute
    return np.array(kept, np.int64)


def _one_image(scores, deltas, im_hw, anchors, var, pre_nms_top_n, post_nms_top_n, nms_thresh, min_size, eta,
               pixel_offset):
    dt = scores.dtype.type
    offset = dt(1) if pixel_offset else dt(0)
    order = np.argsort(-scores, kind="stable")
    if 0 < pre_nms_top_n < len(scores):
        order = order[:pre_nms_top_n]
    boxes = _decode(anchors[order], deltas[order], var[order], offset)
    im_h, im_w = dt(im_hw[0]), dt(im_hw[1])
    lim = np.array([im_w, im_h, im_w, im_h], scores.dtype) - offset
    boxes = np.maximum(np.minimum(boxes, lim), dt(0)).astype(scores.dtype)
    ws = boxes[:, 2] - boxes[:, 0] + offset
    hs = boxes[:, 3] - boxes[:, 1] + offset
    min_size = max(np.float32(min_size), np.float32(1))
    keep = (ws >= min_size) & (hs >= min_size)
    if pixel_offset:
        keep &= (boxes[:, 0] + ws / dt(2) <= im_w) & (boxes[:, 1] + hs / dt(2) <= im_h)
    if not keep.any():
        return np.zeros((1, 4), scores.dtype), np.zeros((1, 1), scores.dtype)
    boxes, probs = boxes[keep], scores[order][keep]
    if nms_thresh > 0:
        kept = _greedy(boxes, dt(np.float32(nms_thresh)), eta, not pixel_offset)
        if 0 < post_nms_top_n < len(kept):
            kept = kept[:post_nms_top_n]
        boxes, probs = boxes[kept], probs[kept]
    return boxes, probs[:, None]


def _generate_kernel(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000, post_nms_top_n=1000,
                     nms_thresh=0.5, min_size=0.1, eta=1.0, pixel_offset=False):
    n, a, h, w = scores.shape
    if bbox_deltas.shape != (n, 4 * a, h, w) or anchors.size != h * w * a * 4 or variances.shape != anchors.shape:
        raise ValueError(f"generate_proposals: scores [N, A, H, W] {list(scores.shape)} needs bbox_deltas "
                         f"[N, 4A, H, W], anchors and variances [H, W, A, 4]; got {list(bbox_deltas.shape)}, "
                         f"{list(anchors.shape)} and {list(variances.shape)}")
    sc = scores.transpose(0, 2, 3, 1).reshape(n, -1)
    dl = bbox_deltas.transpose(0, 2, 3, 1).reshape(n, -1, 4)
    an, var = anchors.reshape(-1, 4).astype(scores.dtype), variances.reshape(-1, 4).astype(scores.dtype)
    rois, probs = [], []
    for i in range(n):
        r, p = _one_image(sc[i], dl[i], img_size[i], an, var, pre_nms_top_n, post_nms_top_n, nms_thresh, min_size,
                          eta, pixel_offset)
        rois.append(r)
        probs.append(p)
    return (np.concatenate(rois).astype(scores.dtype), np.concatenate(probs).astype(scores.dtype),
            np.array([len(r) for r in rois], np.int32))


def_op("generate_proposals", ["Scores", "BboxDeltas", "ImgSize", "Anchors", "Variances"],
       ["RpnRois", "RpnRoiProbs", "RpnRoisNum"],
       attrs={"pre_nms_top_n": 6000, "post_nms_top_n": 1000, "nms_thresh": 0.5, "min_size": 0.1, "eta": 1.0,
              "pixel_offset": False},
       kernel=_generate_kernel,
       infer=lambda s, *a, **k: (Meta([-1, 4], s.dtype), Meta([-1, 1], s.dtype), Meta([s.shape[0]], "int32")),
       no_onnx="a data-dependent number of proposals; not lowered",
       doc="An RPN's proposals [R, 4], their scores [R, 1] and their count per image (Paddle's generate_proposals).")


def generate_proposals(scores: TensorLike, bbox_deltas: TensorLike, img_size: TensorLike, anchors: TensorLike,
                       variances: TensorLike, pre_nms_top_n: int = 6000, post_nms_top_n: int = 1000,
                       nms_thresh: float = 0.5, min_size: float = 0.1, eta: float = 1.0, pixel_offset: bool = False,
                       return_rois_num: bool = False, name: str | None = None):
    """``(rpn_rois [R, 4], rpn_roi_probs [R, 1], rpn_rois_num [N] or None)`` from objectness ``scores``
    [N, A, H, W], ``bbox_deltas`` [N, 4A, H, W], ``img_size`` [N, 2] (height, width), ``anchors`` and
    ``variances`` [H, W, A, 4]; ``rpn_rois_num`` (int32) only with ``return_rois_num``."""
    rois, probs, num = apply("generate_proposals", scores, bbox_deltas, img_size, anchors, variances,
                             pre_nms_top_n=int(pre_nms_top_n), post_nms_top_n=int(post_nms_top_n),
                             nms_thresh=float(nms_thresh), min_size=float(min_size), eta=float(eta),
                             pixel_offset=bool(pixel_offset))
    return rois, probs, num if return_rois_num else None
