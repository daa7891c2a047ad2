"""``paddle.vision.ops.yolo_loss``: the YOLOv3 training loss of one detection head, as Paddle's CPU
kernel computes it.

The matching is data-dependent and not differentiable, so one op (``yolo_loss_targets``, numpy, no
gradient) runs Paddle's loops to find, from the head ``x`` and the ground truth: the objectness mask
(-1 where a predicted box overlaps a ground-truth box by more than ``ignore_thresh``, the box's
score where a ground-truth box is assigned, else 0), and for each ground-truth box the cell and anchor
it is assigned to with its regression targets and weight. The loss itself is then written with
differentiable ops (sigmoid cross-entropy on x/y, objectness and classes, L1 on w/h), so its gradient
is the derivative of Paddle's formula, eagerly and in Programs."""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op

__all__ = ["yolo_loss"]


def _iou(x1, y1, w1, h1, x2, y2, w2, h2):
    """Paddle's CalcBoxIoU on centre/size boxes (broadcasting)."""
    ow = np.minimum(x1 + w1 / 2, x2 + w2 / 2) - np.maximum(x1 - w1 / 2, x2 - w2 / 2)
    oh = np.minimum(y1 + h1 / 2, y2 + h2 / 2) - np.maximum(y1 - h1 / 2, y2 - h2 / 2)
    inter = np.where((ow < 0) | (oh < 0), 0, ow * oh)
    return inter / (w1 * h1 + w2 * h2 - inter)


def _targets_kernel(x, gt_box, gt_label, gt_score, anchors=(), anchor_mask=(), class_num=1, ignore_thresh=0.7,
                    downsample_ratio=32, use_label_smooth=True, scale_x_y=1.0):
    dt = x.dtype.type
    n, _, h, w = x.shape
    m, b = len(anchor_mask), gt_box.shape[1]
    input_size = downsample_ratio * h
    if x.shape[1] != m * (5 + class_num):
        raise ValueError(f"yolo_loss: x has {x.shape[1]} channels, but {m} masked anchors of {class_num} classes "
                         f"take {m * (5 + class_num)}")
    p = x.reshape(n, m, 5 + class_num, h, w)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    scale, bias = dt(scale_x_y), dt(-0.5 * (scale_x_y - 1.0))
    an = np.asarray(anchors, dt).reshape(-1, 2)
    man = an[list(anchor_mask)].reshape(1, m, 1, 1, 2)
    cols, rows = np.arange(w, dtype=dt), np.arange(h, dtype=dt)[:, None]
    # predicted boxes (Paddle divides both centres by the grid height)
    px = (cols + sig(p[:, :, 0]) * scale + bias) / dt(h)
    py = (rows + sig(p[:, :, 1]) * scale + bias) / dt(h)
    pw = np.exp(p[:, :, 2]) * man[..., 0] / dt(input_size)
    ph = np.exp(p[:, :, 3]) * man[..., 1] / dt(input_size)
    valid = ~((gt_box[:, :, 2] < 1e-6) | (gt_box[:, :, 3] < 1e-6))  # [n, b]
    score = np.ones((n, b), dt) if gt_score is None else gt_score.astype(dt)
    obj = np.zeros((n, m, h, w), dt)
    match = np.full((n, b), -1, np.int32)
    index = np.zeros((n, b), np.int64)      # flat (image, masked anchor, cell) of the assigned prediction
    tgt = np.zeros((n, b, 4), dt)           # tx, ty, tw, th
    weight = np.zeros((n, b), dt)           # (2 - w * h) * score for the box terms, 0 if not assigned
    cls_w = np.zeros((n, b), dt)            # score for the class terms
    label = np.zeros((n, b), np.int64)
    for i in range(n):
        g = gt_box[i][valid[i]]
        if len(g):
            iou = _iou(px[i][..., None], py[i][..., None], pw[i][..., None], ph[i][..., None],
                       g[:, 0], g[:, 1], g[:, 2], g[:, 3])
            obj[i][iou.max(-1) > ignore_thresh] = -1
        for t in range(b):
            if not valid[i, t]:
                continue
            gx, gy, gw, gh = gt_box[i, t]
            gi, gj = int(gx * w), int(gy * h)
            ious = _iou(0, 0, an[:, 0] / dt(input_size), an[:, 1] / dt(input_size), 0, 0, gw, gh)
            best = int(np.argmax(ious)) if ious.max() > 0 else 0  # the first of equal bests, as Paddle's strict >
            mask_idx = list(anchor_mask).index(best) if best in anchor_mask else -1
            match[i, t] = mask_idx
            if mask_idx < 0:
                continue
            s = score[i, t]
            index[i, t] = (i * m + mask_idx) * h * w + gj * w + gi
            tgt[i, t] = (gx * h - gi, gy * h - gj, np.log(gw * input_size / an[best, 0]),
                         np.log(gh * input_size / an[best, 1]))
            weight[i, t], cls_w[i, t], label[i, t] = (dt(2.0) - gw * gh) * s, s, int(gt_label[i, t])
            obj[i, mask_idx, gj, gi] = s
    return obj, match, index, tgt, weight, cls_w, label


def _targets_infer(x, gt_box, gt_label, gt_score, anchor_mask=(), **attrs):
    n, _, h, w = x.shape
    b = gt_box.shape[1]
    return (Meta([n, len(anchor_mask), h, w], x.dtype), Meta([n, b], "int32"), Meta([n, b], "int64"),
            Meta([n, b, 4], x.dtype), Meta([n, b], x.dtype), Meta([n, b], x.dtype), Meta([n, b], "int64"))


def_op("yolo_loss_targets", ["X", "GTBox", "GTLabel", "GTScore"],
       ["ObjectnessMask", "GTMatchMask", "Index", "Target", "BoxWeight", "ClassWeight", "Label"],
       attrs={"anchors": (), "anchor_mask": (), "class_num": 1, "ignore_thresh": 0.7, "downsample_ratio": 32,
              "use_label_smooth": True, "scale_x_y": 1.0},
       kernel=_targets_kernel, infer=_targets_infer, no_onnx="YOLOv3 target assignment has no ONNX node",
       doc="The assignment Paddle's yolo_loss makes (objectness mask, matched anchor and targets per box).")


def yolo_loss(x: TensorLike, gt_box: TensorLike, gt_label: TensorLike, anchors: list, anchor_mask: list,
              class_num: int, ignore_thresh: float, downsample_ratio: int, gt_score: TensorLike | None = None,
              use_label_smooth: bool = True, name: str | None = None, scale_x_y: float = 1.0) -> TensorLike:
    """Paddle's YOLOv3 loss, one value per image ([N]), of the head ``x`` [N, len(anchor_mask)*(5+C), H, W]
    against ``gt_box`` [N, B, 4] (centre x, centre y, w, h relative to the image; w or h 0: padding),
    ``gt_label`` [N, B] and optional ``gt_score`` [N, B] (mixup weights)."""
    from .. import ops as _ops  # noqa: F401,PLC0415  (the public functions below are registered by now)
    import runtime as rt  # noqa: PLC0415
    F = rt.nn.functional
    m, c = len(anchor_mask), int(class_num)
    obj, _, index, tgt, weight, cls_w, label = apply(
        "yolo_loss_targets", x, gt_box, gt_label, gt_score, anchors=tuple(int(a) for a in anchors),
        anchor_mask=tuple(int(a) for a in anchor_mask), class_num=c, ignore_thresh=float(ignore_thresh),
        downsample_ratio=int(downsample_ratio), use_label_smooth=bool(use_label_smooth), scale_x_y=float(scale_x_y))
    hw, b = x.shape[2] * x.shape[3], gt_box.shape[1]  # the batch dim may be unknown in a Program: -1 below
    cells = rt.reshape(rt.transpose(rt.reshape(x, [-1, m, 5 + c, hw]), [0, 1, 3, 2]), [-1, 5 + c])
    picked = rt.reshape(rt.gather(cells, rt.reshape(index, [-1])), [-1, b, 5 + c])
    sce = lambda v, t: F.binary_cross_entropy_with_logits(v, t, reduction="none")  # noqa: E731
    box = (sce(picked[:, :, 0], tgt[:, :, 0]) + sce(picked[:, :, 1], tgt[:, :, 1])
           + rt.abs(picked[:, :, 2] - tgt[:, :, 2]) + rt.abs(picked[:, :, 3] - tgt[:, :, 3]))
    pos, neg = 1.0, 0.0
    if use_label_smooth:
        smooth = min(1.0 / c, 1.0 / 40)
        pos, neg = 1.0 - smooth, smooth
    onehot = F.one_hot(label, c).astype(x.dtype)
    cls_target = onehot * (pos - neg) + neg
    classes = rt.sum(sce(picked[:, :, 5:], cls_target), axis=-1)
    per_box = rt.sum(box * weight + classes * cls_w, axis=-1)
    conf = rt.reshape(x, [-1, m, 5 + c, hw])[:, :, 4]
    obj = rt.reshape(obj, [-1, m, hw])
    positive = (obj > 1e-5).astype(x.dtype)
    negative = ((obj > -0.5).astype(x.dtype)) * (1.0 - positive)
    objness = sce(conf, positive) * obj * positive + sce(conf, rt.zeros_like(conf)) * negative
    return per_box + rt.sum(rt.reshape(objness, [-1, m * hw]), axis=-1)
