"""Registry rows (see op_cases.py) for the Paddle 2.x functions ported models call that came later:
attention, padding and shuffling layers' functions, small math functions and losses. The references
are plain numpy, written from Paddle's formulas (checked against Paddle 3.3 outside the suite)."""
import numpy as np

from op_cases import D, F, I, case


def _sdpa(q, k, v, mask):
    q, k, v = (t.transpose(0, 2, 1, 3) for t in (q, k, v))
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + mask
    w = np.exp(s - s.max(-1, keepdims=True))
    return ((w / w.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3)


def _diag_embed(x, offset):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    for i in range(x.shape[-1]):
        out[..., i + max(-offset, 0), i + max(offset, 0)] = x[..., i]
    return out


def _cdist(x, y, p):
    return (np.abs(x[..., :, None, :] - y[..., None, :, :]) ** p).sum(-1) ** (1 / p)


def _red(loss):
    return loss.mean()


def _logsig(x):
    return -np.logaddexp(0, -x)


_PM = np.array([[1, -1, 1], [-1, -1, 1]], np.float32)
_POS = np.array([[0.5, 1.5, 2.5], [3.0, 0.2, 1.0]], np.float32)


def _viterbi(pot, trans, lengths, include_bos_eos_tag):
    """Best CRF paths by trying every path (no BOS/EOS tags), zero-padded to the longest length."""
    import itertools
    out = np.zeros((len(pot), lengths.max()), np.int64)
    scores = []
    for b, n in enumerate(lengths):
        paths = list(itertools.product(range(pot.shape[2]), repeat=int(n)))
        value = [pot[b, range(n), p].sum() + sum(trans[p[t - 1], p[t]] for t in range(1, n)) for p in paths]
        out[b, :n] = paths[int(np.argmax(value))]
        scores.append(max(value))
    return np.array(scores, pot.dtype), out




# three overlapping boxes (IoU of the first two 0.68) and a far one; scores put box 1 first
_BOXES = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 4], [20, 20, 30, 30]], np.float32)


def _yolo_box(x, img, anchors, class_num, conf_thresh, downsample_ratio):
    """Paddle's yolo_box CPU loop, one grid cell at a time (clip_bbox, scale_x_y 1)."""
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    n, _, h, w = x.shape
    a = len(anchors) // 2
    boxes, scores = np.zeros((n, a * h * w, 4), np.float32), np.zeros((n, a * h * w, class_num), np.float32)
    for i in range(n):
        ih, iw = img[i]
        for j in range(a):
            for k in range(h):
                for m in range(w):
                    p = x[i, j * (5 + class_num):(j + 1) * (5 + class_num), k, m]
                    if sig(p[4]) < conf_thresh:
                        continue
                    cx, cy = (m + sig(p[0])) * iw / w, (k + sig(p[1])) * ih / h
                    bw = np.exp(p[2]) * anchors[2 * j] * iw / (downsample_ratio * w)
                    bh = np.exp(p[3]) * anchors[2 * j + 1] * ih / (downsample_ratio * h)
                    b = j * h * w + k * w + m
                    boxes[i, b] = [max(cx - bw / 2, 0), max(cy - bh / 2, 0), min(cx + bw / 2, iw - 1),
                                   min(cy + bh / 2, ih - 1)]
                    scores[i, b] = sig(p[4]) * sig(p[5:])
    return boxes, scores


CASES_COMPAT = {
    "bincount": case(I(6, 9), None, minlength=8, ref=lambda x, w, minlength: np.bincount(x, minlength=8),
                     shape_known=False),
    # -- paddle.text and paddle.vision.ops (their kernels were checked bitwise against Paddle 3.3) -------------
    "viterbi_decode": case(F(2, 3, 3), F(3, 3), np.array([3, 2], np.int64), include_bos_eos_tag=False,
                           shape_known=False, ref=_viterbi),
    "yolo_box": case(F(2, 14, 2, 3), np.array([[64, 96], [40, 50]], np.int32), anchors=(10, 13, 16, 30), class_num=2,
                     conf_thresh=0.4, downsample_ratio=32, ref=_yolo_box, tol=1e-4),
    # its values and the loss built on it are checked against Paddle 3.3 in tests/compat/test_paddle_dy2st_yolo_loss.py
    "yolo_loss_targets": case(F(2, 14, 4, 4), np.array([[[0.3, 0.4, 0.2, 0.3], [0.7, 0.6, 0.5, 0.4]]] * 2, np.float32),
                              I(2, 2, 2), None, anchors=(10, 13, 16, 30, 33, 23), anchor_mask=(0, 1), class_num=2,
                              ignore_thresh=0.5, downsample_ratio=8, grad=False),
    # geometric.reindex_graph (checked against Paddle 3.3 in tests/runtime/test_incubate.py)
    "reindex_graph": case(np.array([0, 1, 2]), np.array([8, 9, 0, 4, 7, 6, 7]), np.array([2, 3, 2], np.int32),
                          shape_known=False, ref=lambda x, nb, c: (np.array([3, 4, 0, 5, 6, 7, 6]),
                                                                   np.array([0, 0, 1, 1, 1, 2, 2]),
                                                                   np.array([0, 1, 2, 8, 9, 4, 7, 6]))),
    "nms": case(_BOXES, np.array([0.5, 0.9, 0.8, 0.1], np.float32), None, iou_threshold=0.5, shape_known=False,
                ref=lambda b, s, c, iou_threshold: np.array([1, 2, 3])),
}

COMPOSITES_COMPAT = {
    "scaled_dot_product_attention": case(F(2, 3, 2, 4), F(2, 5, 2, 4), F(2, 5, 2, 4), F(3, 5), ref=_sdpa),
    "zeropad2d": case(F(1, 2, 3, 3), padding=[1, 0, 2, 1],
                      ref=lambda x, padding: np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 0)])),
    "pixel_unshuffle": case(F(1, 2, 4, 6), downscale_factor=2,
                            ref=lambda x, downscale_factor: x.reshape(1, 2, 2, 2, 3, 2).transpose(0, 1, 3, 5, 2, 4)
                            .reshape(1, 8, 2, 3)),
    "channel_shuffle": case(F(2, 6, 2, 2), groups=3,
                            ref=lambda x, groups: x.reshape(2, 3, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(2, 6, 2, 2)),
    "maxout": case(D(2, 6, 2, 2), groups=2, ref=lambda x, groups: x.reshape(2, 3, 2, 2, 2).max(2)),
    "diag_embed": case(F(2, 3), offset=1, ref=_diag_embed),
    "diagflat": case(F(2, 2), offset=-1, ref=lambda x, offset: np.diagflat(x, -1)),
    "inner": case(F(2, 4), F(3, 4), ref=lambda x, y: x @ y.T),
    "addmm": case(F(3, 4), F(3, 2), F(2, 4), beta=0.5, alpha=2.0,
                  ref=lambda i, x, y, beta, alpha: 0.5 * i + 2.0 * (x @ y)),
    "cdist": case(F(2, 3, 4), F(2, 5, 4), p=3.0, ref=_cdist),
    # -- losses (nn_loss_more.py) ------------------------------------------------------------------------
    "hinge_embedding_loss": case(F(2, 3), _PM, margin=0.5, grad=[0],
                                 ref=lambda x, y, margin: _red(np.where(y == 1, x, np.maximum(0.5 - x, 0)))),
    "cosine_embedding_loss": case(F(2, 3), F(2, 3), np.array([1, -1], np.int64), margin=0.1, grad=[0, 1], ref=lambda a, b, y,
                                  margin: _red(np.where(y == 1, 1 - (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1)),
                                                        np.maximum((a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
                                                                   - 0.1, 0)))),
    "triplet_margin_loss": case(F(2, 3), F(2, 3), F(2, 3) * 3, margin=2.0, ref=lambda a, p, n, margin: _red(np.maximum(
        np.sqrt(((a - p + 1e-6) ** 2).sum(1)) - np.sqrt(((a - n + 1e-6) ** 2).sum(1)) + 2.0, 0))),
    "soft_margin_loss": case(F(2, 3), _PM, grad=[0], ref=lambda x, y: _red(np.log1p(np.exp(-y * x)))),
    "multi_label_soft_margin_loss": case(F(2, 3), (_PM > 0).astype(np.float32), grad=[0], ref=lambda x, y: _red(
        -(y * _logsig(x) + (1 - y) * _logsig(-x)).mean(-1))),
    "poisson_nll_loss": case(F(2, 3), _POS, grad=[0], ref=lambda x, y: _red(np.exp(x) - y * x)),
    "gaussian_nll_loss": case(F(2, 3), F(2, 3), _POS, grad=[0, 1],
                              ref=lambda x, y, v: _red(0.5 * (np.log(v) + (x - y) ** 2 / v))),
    "dice_loss": case(_POS / 4, np.array([[2], [0]], np.int64), ref=lambda x, y: _red(
        1 - 2 * x[np.arange(2), y[:, 0]] / (x.sum(1) + 1 + 1e-5))),
}
