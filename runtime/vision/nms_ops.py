"""paddle.vision.ops.matrix_nms: SOLOv2's matrix non-maximum suppression, as Paddle 3.3's CPU kernel.

Per image and class (but the background one), the boxes scoring above ``score_threshold`` are ranked
(at most ``nms_top_k``); each box's score decays by its worst overlap with a higher-ranked box, relative
to how much that box was itself overlapped (linear ``(1 - iou) / (1 - max_iou)`` or Gaussian); the
boxes whose decayed score stays above ``post_threshold`` are pooled over the classes and the best
``keep_top_k`` kept. How many survive depends on the data, so one op returns them all, with no
gradient, and a Program built with it serves any number, like ``nms``. Boxes of equal scores may be
ranked otherwise than Paddle's unstable partial sort ranks them.
"""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op

__all__ = ["matrix_nms"]


def _area(b, norm):
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    valid = ~((b[:, 2] < b[:, 0]) | (b[:, 3] < b[:, 1]))
    return np.where(valid, (w + norm) * (h + norm), 0).astype(b.dtype)


def _iou_matrix(b, normalized):
    """Paddle's JaccardOverlap of every pair of the boxes ``b`` [K, 4] (0 for disjoint boxes)."""
    norm = b.dtype.type(0 if normalized else 1)
    apart = ((b[None, :, 0] > b[:, None, 2]) | (b[None, :, 2] < b[:, None, 0]) |
             (b[None, :, 1] > b[:, None, 3]) | (b[None, :, 3] < b[:, None, 1]))
    iw = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]) + norm
    ih = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]) + norm
    inter = iw * ih
    area = _area(b, norm)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[:, None] + area[None, :] - inter)
    return np.where(apart, b.dtype.type(0), iou).astype(b.dtype)


def _decayed(boxes, scores, score_threshold, post_threshold, top_k, normalized, use_gaussian, sigma):
    """(box indices, decayed scores) one class keeps: Paddle's NMSMatrix."""
    dt = scores.dtype.type
    f32 = np.float32  # the thresholds and sigma are Paddle float32 attributes, also on float64 scores
    cand = np.flatnonzero(scores > dt(f32(score_threshold)))
    if not len(cand):
        return cand, scores[cand]
    perm = cand[np.argsort(-scores[cand], kind="stable")]
    if top_k > -1:
        perm = perm[:top_k]
    iou = np.tril(_iou_matrix(boxes[perm], normalized), -1)  # iou[i, j]: rank i against a better rank j
    iou_max = iou.max(1)  # rank 0 has none: 0
    if use_gaussian:
        decay = np.exp((iou_max[None, :] * iou_max[None, :] - iou * iou) * dt(f32(sigma)))
    else:  # Paddle computes this one in double
        with np.errstate(divide="ignore", invalid="ignore"):
            decay = ((1.0 - iou.astype(np.float64)) / (1.0 - iou_max[None, :].astype(np.float64))).astype(dt)
    k = len(perm)
    below = np.tril(np.ones((k, k), bool), -1)
    min_decay = np.minimum(np.where(below, decay, dt(1)).min(1), dt(1)).astype(scores.dtype)
    ds = (min_decay * scores[perm]).astype(scores.dtype)
    ds[0] = scores[perm[0]]
    keep = ds > dt(f32(post_threshold))
    return perm[keep], ds[keep]


def _matrix_nms_kernel(bboxes, scores, score_threshold=0.0, post_threshold=0.0, nms_top_k=-1, keep_top_k=-1,
                       use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True):
    if bboxes.ndim != 3 or bboxes.shape[2] != 4 or scores.ndim != 3 or scores.shape[0] != bboxes.shape[0] \
            or scores.shape[2] != bboxes.shape[1]:
        raise ValueError(f"matrix_nms: bboxes must be [N, M, 4] and scores [N, C, M], got {list(bboxes.shape)} "
                         f"and {list(scores.shape)}")
    n, classes, m = scores.shape
    out, index, counts = [], [], []
    for i in range(n):
        idx, sc, cls = [], [], []
        for c in range(classes):
            if c == background_label:
                continue
            k, d = _decayed(bboxes[i], scores[i, c], score_threshold, post_threshold, nms_top_k, normalized,
                            use_gaussian, gaussian_sigma)
            idx.append(k)
            sc.append(d)
            cls.append(np.full(len(k), c, scores.dtype))
        idx, sc, cls = (np.concatenate(v) if v else np.zeros(0, t) for v, t in
                        ((idx, np.int64), (sc, scores.dtype), (cls, scores.dtype)))
        order = np.argsort(-sc, kind="stable")
        if keep_top_k > -1:
            order = order[:keep_top_k]
        out.append(np.concatenate([cls[order, None], sc[order, None], bboxes[i, idx[order]]], 1))
        index.append(i * m + idx[order])
        counts.append(len(order))
    return (np.concatenate(out).astype(scores.dtype).reshape(-1, 6),
            np.concatenate(index).astype(np.int32).reshape(-1, 1), np.array(counts, np.int32))


def_op("matrix_nms", ["BBoxes", "Scores"], ["Out", "Index", "RoisNum"],
       attrs={"score_threshold": 0.0, "post_threshold": 0.0, "nms_top_k": -1, "keep_top_k": -1,
              "use_gaussian": False, "gaussian_sigma": 2.0, "background_label": 0, "normalized": True},
       kernel=_matrix_nms_kernel,
       infer=lambda b, s, **a: (Meta([-1, 6], s.dtype), Meta([-1, 1], "int32"), Meta([s.shape[0]], "int32")),
       no_onnx="a data-dependent number of kept boxes; not lowered",
       doc="Matrix NMS's kept detections [K, 6] (label, score, box), their indices and counts per image.")


def matrix_nms(bboxes: TensorLike, scores: TensorLike, score_threshold: float, post_threshold: float,
               nms_top_k: int, keep_top_k: int, use_gaussian: bool = False, gaussian_sigma: float = 2.0,
               background_label: int = 0, normalized: bool = True, return_index: bool = False,
               return_rois_num: bool = True, name: str | None = None):
    """``(out, rois_num, index)``: the detections matrix NMS keeps from ``bboxes`` [N, M, 4] scored by
    ``scores`` [N, C, M], as rows (label, decayed score, x1, y1, x2, y2) image after image, best first;
    ``rois_num`` [N] (int32) counts each image's rows and ``index`` [K, 1] (int32) gives each row's box
    as image * M + box. Each is None unless asked for (``return_rois_num``, ``return_index``)."""
    out, index, rois_num = apply("matrix_nms", bboxes, scores, score_threshold=float(score_threshold),
                                 post_threshold=float(post_threshold), nms_top_k=int(nms_top_k),
                                 keep_top_k=int(keep_top_k), use_gaussian=bool(use_gaussian),
                                 gaussian_sigma=float(gaussian_sigma), background_label=int(background_label),
                                 normalized=bool(normalized))
    return out, rois_num if return_rois_num else None, index if return_index else None
