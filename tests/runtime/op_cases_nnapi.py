"""Registry rows (see op_cases.py) for the Paddle 2.x nn functions of ``runtime/ops/nn_pool_adaptive.py``
and its siblings. The references are plain numpy written from Paddle's formulas (the functions were
also checked against Paddle 3.3 in tests/runtime/test_nn_api_*.py)."""
import itertools

import numpy as np

from op_cases import D, F, P, case


def _bins(n, m):
    return [((i * n) // m, -(-((i + 1) * n) // m)) for i in range(m)]


def _adaptive(x, sizes, fn):
    """fn over each adaptive bin of the trailing len(sizes) dims."""
    nd = len(sizes)
    spatial = x.shape[-nd:]
    out = np.zeros(x.shape[:-nd] + tuple(sizes), x.dtype)
    for idx in itertools.product(*[range(o) for o in sizes]):
        sl = tuple(slice(*_bins(n, o)[i]) for n, o, i in zip(spatial, sizes, idx))
        out[(Ellipsis,) + idx] = fn(x[(Ellipsis,) + sl].reshape(x.shape[:-nd] + (-1,)), axis=-1)
    return out


def _max_mask(x, sizes):
    nd = len(sizes)
    spatial = x.shape[-nd:]
    flat = np.arange(int(np.prod(spatial))).reshape(spatial)
    mask = np.zeros(x.shape[:-nd] + tuple(sizes), np.int32)
    for idx in itertools.product(*[range(o) for o in sizes]):
        sl = tuple(slice(*_bins(n, o)[i]) for n, o, i in zip(spatial, sizes, idx))
        win = x[(Ellipsis,) + sl].reshape(x.shape[:-nd] + (-1,))
        mask[(Ellipsis,) + idx] = flat[sl].reshape(-1)[win.argmax(-1)]
    return _adaptive(x, sizes, np.max), mask


def _lp1d(x, norm_type, kernel_size, stride):
    n = (x.shape[-1] - kernel_size) // stride + 1
    return np.stack([(x[..., i * stride:i * stride + kernel_size] ** norm_type).sum(-1) ** (1 / norm_type)
                     for i in range(n)], -1)


def _lp2d(x, norm_type, kernel_size, padding):
    xp = np.pad(x, [(0, 0), (0, 0), (padding, padding), (padding, padding)])
    k = kernel_size
    out = np.zeros(x.shape[:2] + ((xp.shape[2] - k) // k + 1, (xp.shape[3] - k) // k + 1), x.dtype)
    for i, j in itertools.product(range(out.shape[2]), range(out.shape[3])):
        out[:, :, i, j] = (xp[:, :, i * k:i * k + k, j * k:j * k + k] ** norm_type).sum((2, 3)) ** (1 / norm_type)
    return out


def _fold(x, output_sizes, kernel_sizes, strides, paddings):
    n, c = x.shape[0], x.shape[1] // 4
    out = np.zeros((n, c, 4 + 2, 5), x.dtype)  # height padded by 1 on each side
    blocks = x.reshape(n, c, 2, 2, 5, 2)  # [N, C, kh, kw, block rows, block cols]
    for bi, bj, a, b in itertools.product(range(5), range(2), range(2), range(2)):
        out[:, :, bi + a, 2 * bj + b] += blocks[:, :, a, b, bi, bj]
    return out[:, :, 1:-1]


def _affine_grid(theta, out_shape, align_corners):
    h, w = out_shape[2:]
    ys, xs = (np.linspace(-1, 1, n) * (n - 1) / n for n in (h, w))
    base = np.stack(list(np.meshgrid(xs, ys)) + [np.ones((h, w))], -1)  # [H, W, 3]: x, y, 1
    return np.einsum("hwk,njk->nhwj", base, theta)


def _grid_sample_border(x, grid, padding_mode, align_corners):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3], x.dtype)
    for i, j in itertools.product(range(grid.shape[1]), range(grid.shape[2])):
        gx = np.clip(((grid[0, i, j, 0] + 1) * w - 1) / 2, 0, w - 1)
        gy = np.clip(((grid[0, i, j, 1] + 1) * h - 1) / 2, 0, h - 1)
        x0, y0 = int(np.floor(gx)), int(np.floor(gy))
        for cx, cy in itertools.product((x0, x0 + 1), (y0, y0 + 1)):
            if cx < w and cy < h:
                out[0, :, i, j] += x[0, :, cy, cx] * (1 - abs(gx - cx)) * (1 - abs(gy - cy))
    return out


def _gumbel(x, temperature):
    u = np.maximum(np.random.default_rng(0).random(x.shape, dtype=np.float32), np.finfo(np.float32).tiny)
    z = (x - np.log(-np.log(u))) / temperature
    return np.exp(z - z.max(-1, keepdims=True)) / np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True)


def _ctc_brute(logits, labels, in_lens, lab_lens, blank=0):
    """-log P(label) by summing every alignment (tiny T and C only)."""
    out = []
    for b in range(logits.shape[1]):
        t_len, lab = int(in_lens[b]), list(labels[b, :int(lab_lens[b])])
        x = logits[:t_len, b].astype(np.float64)
        logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
        total = 0.0
        for path in itertools.product(range(x.shape[1]), repeat=t_len):
            collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
            if collapsed == lab:
                total += np.exp(sum(logp[t, k] for t, k in enumerate(path)))
        out.append(-np.log(total))
    return np.array(out, np.float32)


def _npair(a, p, labels, l2_reg):
    same = (labels[:, None] == labels[None, :]).astype(np.float64)
    same /= same.sum(1, keepdims=True)
    sim = a @ p.T
    logsm = sim - sim.max(1, keepdims=True)
    logsm -= np.log(np.exp(logsm).sum(1, keepdims=True))
    ce = -(same * logsm).sum(1, keepdims=True)  # [B, 1]
    l2 = ((a * a).sum(1).mean() + (p * p).sum(1).mean()) * 0.25 * l2_reg
    return l2 + (same * ce).sum(0).mean()


def _hsig_default(x, label, w, b, num_classes):
    loss = np.zeros((len(label), 1), np.float32)
    for n, k in enumerate(label):
        c = k + num_classes
        length = int(np.floor(np.log2(c)))
        for j in range(3):  # code length of 6 classes: 3 (steps past the path add log 2, as Paddle's)
            if j >= length:
                loss[n] += np.log(2.0)
                continue
            node, bit = (c >> (j + 1)) - 1, (c >> j) & 1
            z = np.clip(x[n] @ w[node] + b[node, 0], -40, 40)
            loss[n] += np.log1p(np.exp(z)) - bit * z
    return loss


COMPOSITES_NNAPI = {
    "adaptive_max_pool1d": case(D(1, 2, 7), output_size=3, return_mask=True,
                                ref=lambda x, output_size, return_mask: _max_mask(x, [3])),
    "adaptive_max_pool3d": case(D(1, 1, 3, 3, 4), output_size=[2, 2, 3], return_mask=True,
                                ref=lambda x, output_size, return_mask: _max_mask(x, [2, 2, 3])),
    "adaptive_avg_pool3d": case(F(1, 1, 2, 3, 4), output_size=[1, 2, 3],
                                ref=lambda x, output_size: _adaptive(x, [1, 2, 3], np.mean)),
    "lp_pool1d": case(P(2, 3, 7), norm_type=3, kernel_size=3, stride=2,
                      ref=lambda x, norm_type, kernel_size, stride: _lp1d(x, 3, 3, 2)),
    "lp_pool2d": case(P(1, 2, 4, 5), norm_type=2, kernel_size=2, padding=1,
                      ref=lambda x, norm_type, kernel_size, padding: _lp2d(x, 2, 2, 1)),
    # the random functions' rows run their deterministic (inference) path; training is in test_nn_api_dropout.py
    "dropout1d": case(F(2, 3, 4), training=False, ref=lambda x, training: x),
    "dropout3d": case(F(2, 3, 2, 2, 2), training=False, ref=lambda x, training: x),
    "alpha_dropout": case(F(2, 3), training=False, ref=lambda x, training: x),
    "feature_alpha_dropout": case(F(2, 3, 2), training=False, ref=lambda x, training: x),
    "rrelu": case(F(3, 4) + 0.05, lower=0.1, upper=0.3, training=False,
                  ref=lambda x, lower, upper, training: np.where(x >= 0, x, x * np.float32(0.2))),
    # in-place activations: on a computed value (a fed input or a leaf cannot be written in place)
    "relu_": case(F(3, 4) + 0.05, computed=True, ref=lambda x: np.maximum(x, 0)),
    "elu_": case(F(3, 4) + 0.05, alpha=0.5, computed=True, ref=lambda x, alpha: np.where(x > 0, x, 0.5 * np.expm1(x))),
    "leaky_relu_": case(F(3, 4) + 0.05, negative_slope=0.2, computed=True,
                        ref=lambda x, negative_slope: np.where(x > 0, x, 0.2 * x)),
    "softmax_": case(F(3, 4), axis=0, computed=True,
                     ref=lambda x, axis: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    "tanh_": case(F(3, 4), computed=True, ref=lambda x: np.tanh(x)),
    "hardtanh_": case(F(3, 4) * 0.5, min=-0.55, max=0.65, computed=True,
                      ref=lambda x, min, max: np.clip(x, -0.55, 0.65)),  # noqa: A006
    "thresholded_relu_": case(F(3, 4) + 0.05, threshold=0.3, value=-1.0, computed=True,
                              ref=lambda x, threshold, value: np.where(x > 0.3, x, -1.0)),
    # fold: the adjoint of unfold (<fold(x), y> == <x, unfold(y)>), checked by scattering each block
    "fold": case(F(1, 8, 10), output_sizes=[4, 5], kernel_sizes=2, strides=[1, 2], paddings=[1, 0], ref=_fold),
    "affine_grid": case(F(1, 2, 3), out_shape=[1, 1, 3, 4], align_corners=False, ref=_affine_grid),
    "grid_sample": case(F(1, 1, 3, 4), np.array([[[[-0.9, 0.35], [0.3, -0.6]], [[1.2, 0.1], [0.55, 0.8]]]], np.float32),
                        padding_mode="border", align_corners=False, ref=_grid_sample_border),
    # seeded: the noise is the generator's first float32 uniform draws after rt.seed(0); the gradient is
    # Paddle's (softmax's Jacobian alone), not the function's, so test_nn_api_vision.py checks it
    "gumbel_softmax": case(F(2, 3), temperature=2.0, grad=False, seeded=True, ref=_gumbel),
    "pdist": case(F(4, 3), p=3.0, ref=lambda x, p: np.array([(np.abs(x[i] - x[j]) ** 3).sum() ** (1 / 3)
                                                             for i in range(4) for j in range(i + 1, 4)])),
    "logsigmoid": case(F(3, 4), ref=lambda x: -np.log1p(np.exp(-x))),
    "rms_norm": case(F(2, 3, 4), 4, P(4), ref=lambda x, shape, w: (
        x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w, 1 / np.sqrt((x * x).mean(-1).ravel() + 1e-5))),
    # losses
    "ctc_loss": case(F(4, 2, 3), np.array([[1, 2], [2, 0]], np.int32), np.array([4, 3], np.int64),
                     np.array([2, 1], np.int64), reduction="none", grad=[0],
                     ref=lambda x, lab, il, ll, reduction: _ctc_brute(x, lab, il, ll)),
    "multi_margin_loss": case(F(4, 5), np.array([1, 0, 4, 2], np.int64), 2, 0.5, P(5), grad=[0],
                              ref=lambda x, y, p, margin, w: (w[y][:, None] * np.maximum(
                                  0.5 - x[np.arange(4), y][:, None] + x, 0) ** 2).mean(1).mean()
                              - (w[y] * 0.25 / 5).mean()),
    "multi_label_margin_loss": case(F(3, 4), np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 1, 1]], np.int64),
                                    reduction="none", ref=lambda x, y, reduction: np.array([
                                        sum(max(0, 1 - x[0, t] + x[0, i]) for t in (3, 0) for i in (1, 2)) / 4,
                                        0.0, 0.0])),
    "triplet_margin_with_distance_loss": case(F(3, 4), F(3, 4), F(3, 4), margin=2.0, swap=True, ref=lambda a, p, n,
                                              margin, swap: np.maximum(np.sqrt(((a - p + 1e-6) ** 2).sum(1)) - np.minimum(
                                                  np.sqrt(((a - n + 1e-6) ** 2).sum(1)),
                                                  np.sqrt(((p - n + 1e-6) ** 2).sum(1))) + 2.0, 0).mean()),
    "npair_loss": case(F(4, 3), F(4, 3), np.array([1, 2, 1, 3], np.int64), l2_reg=0.01, grad=[0, 1], ref=_npair),
    "hsigmoid_loss": case(F(4, 3), np.array([0, 5, 3, 2], np.int64), 6, F(5, 3), F(5, 1), grad=[0, 3, 4],
                          ref=lambda x, y, num_classes, w, b: _hsig_default(x, y, w, b, 6)),
}

CASES_NNAPI = {
    # the loss is checked against brute force through ctc_loss's row; here its gradient against differences
    "warpctc": case(F(4, 2, 3), np.array([[1, 2], [2, 0]], np.int32), np.array([4, 3], np.int64),
                    np.array([2, 1], np.int64), grad=[0], grad_outs=[0]),
}
