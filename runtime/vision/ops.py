"""paddle.vision.ops: the RoI pooling functions and layers (runtime/vision/roi_ops.py), ``nms``, the non-maximum suppression detection heads end with, and ``yolo_box``,
YOLOv3's decoding of a head into boxes and scores (Paddle's loop as array ops; equal to Paddle 3.3's to
float32 rounding, numpy's and the C library's ``exp`` differing in the last bit).

One op holds the whole of Paddle's ``nms`` (global or per category, sorted by score, ``top_k``):
Paddle builds the per-category case from a Python loop over data-dependent sizes (``shape == 0``
tests of ``paddle.where``'s result), which a Program cannot decide while it is built, so a converted
detector runs it as one op and serves every number of boxes.
"""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op

__all__ = ["nms", "yolo_box", "yolo_loss", "roi_align", "roi_pool", "psroi_pool", "RoIAlign", "RoIPool", "PSRoIPool", "box_coder",
           "prior_box", "deform_conv2d", "DeformConv2D",
           "matrix_nms", "distribute_fpn_proposals", "generate_proposals"]


def _greedy_keep(boxes, threshold):
    """Paddle's kernel: walk the boxes in order, drop every later box whose IoU with a kept one exceeds
    ``threshold``; the indices of the kept boxes, ascending. IoU without a +1 pixel offset."""
    n = boxes.shape[0]
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    area = (x1 - x0) * (y1 - y0)
    w = np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None])
    h = np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None])
    inter = np.maximum(w, 0) * np.maximum(h, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        over = inter / (area[:, None] + area[None] - inter) > boxes.dtype.type(threshold)
    dropped = np.zeros(n, bool)
    for i in range(n):
        if not dropped[i]:
            dropped[i + 1:] |= over[i, i + 1:]
    return np.flatnonzero(~dropped)


def _by_score(scores):
    # descending; a stable sort keeps equal scores in input order
    return np.argsort(-scores, kind="stable")


def _nms_kernel(boxes, scores=None, category_idxs=None, iou_threshold=0.3, categories=None, top_k=None):
    if boxes.ndim != 2 or boxes.shape[-1] != 4:
        raise ValueError(f"nms: boxes must be [N, 4] (x1, y1, x2, y2), got shape {list(boxes.shape)}")
    if scores is None:
        return _greedy_keep(boxes, iou_threshold).astype(np.int64)
    if category_idxs is None:
        order = _by_score(scores)
        return order[_greedy_keep(boxes[order], iou_threshold)].astype(np.int64)
    mask = np.zeros(scores.shape[0], bool)
    for c in categories:
        idx = np.flatnonzero(category_idxs == c)
        order = _by_score(scores[idx])
        mask[idx[order[_greedy_keep(boxes[idx][order], iou_threshold)]]] = True
    keep = np.flatnonzero(mask)
    order = _by_score(scores[keep])
    return keep[order if top_k is None else order[:top_k]].astype(np.int64)


def_op("nms", ["Boxes", "Scores", "CategoryIdxs"], ["KeepBoxesIdxs"],
       attrs={"iou_threshold": 0.3, "categories": None, "top_k": None}, kernel=_nms_kernel,
       infer=lambda boxes, scores=None, category_idxs=None, **attrs: Meta([-1], "int64"),
       no_onnx="a data-dependent number of kept boxes; not lowered",
       doc="Indices of the boxes non-maximum suppression keeps (Paddle's paddle.vision.ops.nms).")


def nms(boxes: TensorLike, iou_threshold: float = 0.3, scores: TensorLike | None = None,
        category_idxs: TensorLike | None = None, categories: list | None = None,
        top_k: int | None = None) -> TensorLike:
    """Indices (int64) of the ``boxes`` [N, 4] kept by non-maximum suppression at ``iou_threshold``: in
    input order without ``scores``; by descending score with them; per category (``category_idxs`` [N]
    and the list ``categories``), at most ``top_k`` of them, when ``category_idxs`` is given."""
    if category_idxs is not None:
        if categories is None:
            raise ValueError("nms: category_idxs needs categories, the list of every category id")
        if scores is None:
            raise ValueError("nms: category_idxs needs scores")
        if top_k is not None and scores.shape[0] >= 0 and top_k > scores.shape[0]:
            raise ValueError(f"nms: top_k={top_k} exceeds the number of boxes {scores.shape[0]}")
    return apply("nms", boxes, scores, category_idxs, iou_threshold=float(iou_threshold),
                 categories=None if categories is None else tuple(int(c) for c in categories),
                 top_k=None if top_k is None else int(top_k))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _yolo_box_kernel(x, img_size, anchors=(), class_num=1, conf_thresh=0.01, downsample_ratio=32, clip_bbox=True,
                     scale_x_y=1.0):
    n, c, h, w = x.shape
    an_num = len(anchors) // 2
    if c != an_num * (5 + class_num):
        raise ValueError(f"yolo_box: x has {c} channels, but {an_num} anchors of {class_num} classes take "
                         f"{an_num * (5 + class_num)}")
    dt = x.dtype.type
    p = x.reshape(n, an_num, 5 + class_num, h, w)
    conf = _sigmoid(p[:, :, 4])
    keep = (conf >= conf_thresh)[..., None]  # [n, an, h, w, 1]
    img_h = img_size[:, 0].astype(dt).reshape(n, 1, 1, 1)
    img_w = img_size[:, 1].astype(dt).reshape(n, 1, 1, 1)
    scale, bias = dt(scale_x_y), dt(-0.5 * (scale_x_y - 1.0))
    an = np.asarray(anchors, dt).reshape(1, an_num, 1, 1, 2)
    cols, rows = np.arange(w, dtype=dt)[None, None, None, :], np.arange(h, dtype=dt)[None, None, :, None]
    cx = (cols + _sigmoid(p[:, :, 0]) * scale + bias) * img_w / dt(w)
    cy = (rows + _sigmoid(p[:, :, 1]) * scale + bias) * img_h / dt(h)
    bw = np.exp(p[:, :, 2]) * an[..., 0] * img_w / dt(downsample_ratio * w)
    bh = np.exp(p[:, :, 3]) * an[..., 1] * img_h / dt(downsample_ratio * h)
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], -1)
    if clip_bbox:
        boxes = np.stack([np.maximum(boxes[..., 0], 0), np.maximum(boxes[..., 1], 0),
                          np.minimum(boxes[..., 2], img_w - 1), np.minimum(boxes[..., 3], img_h - 1)], -1)
    scores = conf[..., None] * np.moveaxis(_sigmoid(p[:, :, 5:]), 2, -1)
    boxes, scores = np.where(keep, boxes, dt(0)), np.where(keep, scores, dt(0))
    return boxes.reshape(n, -1, 4).astype(dt), scores.reshape(n, -1, class_num).astype(dt)


def _yolo_box_infer(x, img_size, anchors=(), class_num=1, **attrs):
    n, _, h, w = x.shape
    m = -1 if min(h, w) < 0 else len(anchors) // 2 * h * w
    return Meta([n, m, 4], x.dtype), Meta([n, m, class_num], x.dtype)


def_op("yolo_box", ["X", "ImgSize"], ["Boxes", "Scores"],
       attrs={"anchors": (), "class_num": 1, "conf_thresh": 0.01, "downsample_ratio": 32, "clip_bbox": True,
              "scale_x_y": 1.0},
       kernel=_yolo_box_kernel, infer=_yolo_box_infer, no_onnx="YOLO decoding has no ONNX node; not lowered",
       doc="Boxes (x1, y1, x2, y2 in image pixels) and class scores decoded from a YOLOv3 head (Paddle's yolo_box).")


def yolo_box(x: TensorLike, img_size: TensorLike, anchors: list, class_num: int, conf_thresh: float,
             downsample_ratio: int, clip_bbox: bool = True, name: str | None = None, scale_x_y: float = 1.0,
             iou_aware: bool = False, iou_aware_factor: float = 0.5) -> tuple[TensorLike, TensorLike]:
    """``(boxes [N, M, 4], scores [N, M, class_num])`` decoded from a YOLOv3 head ``x`` [N, A*(5+C), H, W]
    for images of ``img_size`` [N, 2] (height, width); boxes whose objectness is below ``conf_thresh``
    are all zeros, as Paddle's."""
    if iou_aware:
        raise NotImplementedError("yolo_box: iou_aware=True is not supported")
    return tuple(apply("yolo_box", x, img_size, anchors=tuple(int(a) for a in anchors), class_num=int(class_num),
                       conf_thresh=float(conf_thresh), downsample_ratio=int(downsample_ratio),
                       clip_bbox=bool(clip_bbox), scale_x_y=float(scale_x_y)))


from .yolo_loss import yolo_loss  # noqa: E402  (its own module: the target assignment and the loss)
from .roi_ops import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool  # noqa: E402,F401
from .box_ops import box_coder, prior_box  # noqa: E402,F401
from .deform_conv import DeformConv2D, deform_conv2d  # noqa: E402,F401
from .nms_ops import matrix_nms  # noqa: E402,F401
from .fpn_ops import distribute_fpn_proposals  # noqa: E402,F401
from .proposal_ops import generate_proposals  # noqa: E402,F401
