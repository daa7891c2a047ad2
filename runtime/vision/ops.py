"""paddle.vision.ops: ``nms``, the non-maximum suppression detection heads end with.

One op holds the whole of Paddle's ``nms`` (global or per category, sorted by score, ``top_k``):
Paddle builds the per-category case from a Python loop over data-dependent sizes (``shape == 0``
tests of ``paddle.where``'s result), which a Program cannot decide while it is built, so a converted
detector runs it as one op and serves every number of boxes.
"""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op

__all__ = ["nms"]


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
