"""Registry rows (see op_cases.py) for Paddle's extra activations, losses and vision functions:
``runtime/ops/nn_activation_extra.py``, ``nn_loss_extra.py``, ``nn_vision.py`` and ``nn_conv_transpose.py``.
The references are plain numpy, written from Paddle's formulas (checked against Paddle 3.3 outside the suite)."""
import numpy as np

from op_cases import D, F, I, P, case

_rng = np.random.default_rng(77)


def U(*shape):
    """float32 values in [0.1, 0.9): probabilities away from 0 and 1."""
    return _rng.uniform(0.1, 0.9, shape).astype(np.float32)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _red(loss, reduction="mean"):
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def _nll(x, label, w, reduction):
    picked = -x[np.arange(len(label)), label] * w[label]
    return picked.sum() / w[label].sum() if reduction == "mean" else _red(picked, reduction)


def _bins(n, m):
    return [((i * n) // m, -(-((i + 1) * n) // m)) for i in range(m)]


def _adaptive(x, oh, ow, fn):
    out = np.zeros(x.shape[:2] + (oh, ow), x.dtype)
    for i, (h0, h1) in enumerate(_bins(x.shape[2], oh)):
        for j, (w0, w1) in enumerate(_bins(x.shape[3], ow)):
            out[:, :, i, j] = fn(x[:, :, h0:h1, w0:w1], axis=(2, 3))
    return out


def _bilinear(x, size, mode, align_corners=False):
    """Paddle's bilinear resize (align_mode 0) along H then W."""
    for axis, n_out in ((2, size[0]), (3, size[1])):
        n_in = x.shape[axis]
        k = np.arange(n_out)
        if align_corners:
            src = k * (n_in - 1) / (n_out - 1)
        else:
            src = np.maximum((k + 0.5) * n_in / n_out - 0.5, 0)
        i0 = np.minimum(np.floor(src).astype(int), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        lam = (src - i0).reshape([-1] + [1] * (3 - axis))
        x = np.take(x, i0, axis) * (1 - lam) + np.take(x, i1, axis) * lam
    return x


def _unfold(x, kernel_sizes, strides, paddings):
    n, c, h, w = x.shape
    kh, kw = kernel_sizes
    xp = np.pad(x, ((0, 0), (0, 0), (paddings, paddings), (paddings, paddings)))
    oh, ow = (h + 2 * paddings - kh) // strides + 1, (w + 2 * paddings - kw) // strides + 1
    cols = [xp[:, :, i * strides:i * strides + kh, j * strides:j * strides + kw].reshape(n, -1)
            for i in range(oh) for j in range(ow)]
    return np.stack(cols, axis=-1)


def _conv1d(x, w, b, stride, padding):
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    k = w.shape[2]
    out_len = (xp.shape[2] - k) // stride + 1
    out = np.stack([np.einsum("nck,ock->no", xp[:, :, i * stride:i * stride + k], w) for i in range(out_len)], -1)
    return out + b[None, :, None]


def _conv_t(x, w, strides, paddings, output_padding):
    """conv2d_transpose as a scatter of each input pixel times the filter (groups 1)."""
    n, ci, h, wd = x.shape
    co, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    s, p = strides, paddings
    full_h, full_w = (h - 1) * s[0] + kh + output_padding[0], (wd - 1) * s[1] + kw + output_padding[1]
    out = np.zeros((n, co, full_h, full_w), np.float64)
    for i in range(h):
        for j in range(wd):
            out[:, :, i * s[0]:i * s[0] + kh, j * s[1]:j * s[1] + kw] += np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    return out[:, :, p[0]:full_h - p[1], p[2]:full_w - p[3]].astype(x.dtype)


def _norm(x, axes):
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)


def _lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    sq = np.pad(x * x, ((0, 0), (size // 2, (size - 1) // 2), (0, 0), (0, 0)))
    div = sum(sq[:, j:j + c] for j in range(size)) / size
    return x / (k + alpha * div) ** beta


def _tshift(x, seg_num, shift_ratio=0.25):
    nt, c, h, w = x.shape
    v = x.reshape(-1, seg_num, c, h, w)
    out = np.zeros_like(v)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out[:, 1:, :c1] = v[:, :-1, :c1]
    out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    return out.reshape(nt, c, h, w)


_SELU = (1.0507009873554804934193349852946, 1.6732632423543772848170429916717)
_LOGP = np.log(_rng.dirichlet(np.ones(5), 4)).astype(np.float32)
_NLL_LABEL = np.array([1, 4, 0, 2], np.int64)

COMPOSITES_NN = {
    # -- activations --------------------------------------------------------------------------------
    "relu6": case(F(3, 4) * 4, ref=lambda x: np.clip(x, 0, 6)),
    "hardswish": case(F(3, 4) * 3, ref=lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": case(F(3, 4) * 3, ref=lambda x: np.clip(x * np.float32(0.1666667) + 0.5, 0, 1)),
    "prelu": case(F(2, 3, 4), P(3) / 4, ref=lambda x, w: np.where(x > 0, x, w[:, None] * x)),
    "selu": case(F(3, 4), ref=lambda x: _SELU[0] * np.where(x > 0, x, _SELU[1] * np.expm1(x))),
    "celu": case(F(3, 4), alpha=0.5, ref=lambda x, alpha: np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha))),
    "softsign": case(F(3, 4), ref=lambda x: x / (1 + np.abs(x))),
    "softshrink": case(F(3, 4), threshold=0.3,
                       ref=lambda x, threshold: np.where(x > threshold, x - threshold,
                                                         np.where(x < -threshold, x + threshold, 0))),
    "hardshrink": case(F(3, 4), ref=lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "tanhshrink": case(F(3, 4), ref=lambda x: x - np.tanh(x)),
    "hardtanh": case(F(3, 4) * 2, min=-0.5, max=1.5, ref=lambda x, min, max: np.clip(x, min, max)),
    "thresholded_relu": case(F(3, 4), threshold=0.2, value=0.5,
                             ref=lambda x, threshold, value: np.where(x > threshold, x, value)),
    "glu": case(F(3, 6), ref=lambda x: x[:, :3] * _sig(x[:, 3:])),
    # -- losses and distances -------------------------------------------------------------------------
    "l1_loss": case(F(3, 4), F(3, 4), reduction="sum", ref=lambda x, y, reduction: np.abs(x - y).sum()),
    "smooth_l1_loss": case(F(3, 4), F(3, 4), delta=0.8, ref=lambda x, y, delta: np.mean(
        np.where(np.abs(x - y) < delta, 0.5 * (x - y) ** 2, delta * (np.abs(x - y) - 0.5 * delta)))),
    "nll_loss": case(_LOGP, _NLL_LABEL, P(5), reduction="mean", grad=[0], ref=_nll),  # no grad to weights (Paddle)
    "kl_div": case(F(3, 4), U(3, 4), reduction="batchmean", grad=[0],  # labels: no grad (Paddle)
                   ref=lambda x, y, reduction: (y * (np.log(y) - x)).sum() / 3),
    "binary_cross_entropy": case(U(3, 4), U(3, 4), grad=[0], ref=lambda p, y: np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))),
    "margin_ranking_loss": case(F(3, 4), F(3, 4), np.sign(F(3, 4)), margin=0.1, grad=[0, 1],
                                ref=lambda x, o, y, margin: np.maximum(0, -y * (x - o) + margin).mean()),
    "square_error_cost": case(F(3, 4), F(3, 4), ref=lambda x, y: (x - y) ** 2),
    "log_loss": case(U(4, 1), U(4, 1), grad=[0], ref=lambda p, y: -y * np.log(p + 1e-4) - (1 - y) * np.log(1 - p + 1e-4)),
    "sigmoid_focal_loss": case(F(3, 4), (F(3, 4) > 0).astype(np.float32), grad=[0], ref=lambda x, y: np.sum(
        (0.25 * y + 0.75 * (1 - y)) * (1 - (_sig(x) * y + (1 - _sig(x)) * (1 - y))) ** 2
        * (np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))))),
    "softmax_with_cross_entropy": case(F(4, 5), I(5, 4, 1), ref=lambda x, y: (
        np.log(np.exp(x).sum(1, keepdims=True)) - np.take_along_axis(x, y, 1))),
    "label_smooth": case(U(3, 4), epsilon=0.2, ref=lambda y, epsilon: 0.8 * y + 0.05),
    "cosine_similarity": case(F(3, 4), F(3, 4), ref=lambda a, b: (a * b).sum(1) / np.sqrt(
        (a * a).sum(1) * (b * b).sum(1))),
    "pairwise_distance": case(F(3, 4), F(3, 4), ref=lambda a, b: np.sqrt(((a - b + 1e-6) ** 2).sum(-1))),
    # -- vision ------------------------------------------------------------------------------------------
    "interpolate": case(F(1, 2, 3, 4), size=[5, 7], mode="bilinear",
                        ref=lambda x, size, mode: _bilinear(x, size, mode), tol=1e-5),
    "pixel_shuffle": case(F(1, 8, 2, 3), upscale_factor=2, ref=lambda x, upscale_factor: x.reshape(
        1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)),
    "unfold": case(F(1, 2, 4, 5), kernel_sizes=[2, 3], strides=2, paddings=1, ref=_unfold),
    "adaptive_max_pool2d": case(D(1, 2, 5, 7), output_size=[2, 3],
                                ref=lambda x, output_size: _adaptive(x, 2, 3, np.max)),
    "adaptive_avg_pool1d": case(F(2, 3, 7), output_size=3,
                                ref=lambda x, output_size: _adaptive(x[:, :, None], 1, 3, np.mean)[:, :, 0]),
    "conv1d": case(F(2, 3, 7), F(4, 3, 3), F(4), stride=2, padding=1, ref=_conv1d, tol=1e-4),
    "conv1d_transpose": case(F(2, 3, 4), F(3, 2, 3), F(2), stride=2, padding=1, tol=1e-4, ref=lambda x, w, b, stride,
                             padding: _conv_t(x[:, :, None], w[:, :, None], [1, 2], [0, 0, 1, 1], [0, 0])[:, :, 0]
                             + b[None, :, None]),
    "max_pool1d": case(D(2, 3, 8), kernel_size=2, ref=lambda x, kernel_size: x.reshape(2, 3, 4, 2).max(-1)),
    "avg_pool1d": case(F(2, 3, 8), kernel_size=2, ref=lambda x, kernel_size: x.reshape(2, 3, 4, 2).mean(-1)),
    "group_norm": case(F(2, 4, 2, 3), num_groups=2, tol=1e-4,
                       ref=lambda x, num_groups: _norm(x.reshape(2, 2, -1), 2).reshape(x.shape)),
    "instance_norm": case(F(2, 3, 2, 3), tol=1e-4, ref=lambda x: _norm(x, (2, 3))),
    "local_response_norm": case(F(2, 5, 2, 3), size=3, alpha=0.1, tol=1e-5,
                                ref=lambda x, size, alpha: _lrn(x, size, alpha)),
    "temporal_shift": case(F(4, 4, 2, 2), seg_num=2, ref=_tshift),
    "dropout2d": case(F(2, 3, 2, 2), training=False, ref=lambda x, training: x),
}

def _conv3d_ref(x, w, strides, paddings, dilations):
    """conv3d (groups 1) as a sum over kernel positions of strided slices of the padded input."""
    xp = np.pad(x, [(0, 0), (0, 0)] + [(paddings[2 * i], paddings[2 * i + 1]) for i in range(3)])
    k, s, d = w.shape[2:], strides, dilations
    out = [(xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(3)]
    y = np.zeros((x.shape[0], w.shape[0], *out), np.float64)
    for a, b, c in np.ndindex(*k):
        sl = xp[:, :, a * d[0]::s[0], b * d[1]::s[1], c * d[2]::s[2]][:, :, :out[0], :out[1], :out[2]]
        y += np.einsum("ncdhw,oc->nodhw", sl, w[:, :, a, b, c])
    return y.astype(x.dtype)


_C3 = dict(strides=[1, 2, 1], paddings=[1, 0, 0, 1, 1, 1], dilations=[1, 1, 2])
_P3 = dict(ksize=[2, 2, 2], strides=[2, 2, 2], paddings=[0] * 6)
_CT = dict(strides=[2, 1], paddings=[1, 0, 0, 1], output_padding=[1, 0])
CASES_NN = {
    "conv3d": case(F(1, 2, 4, 3, 4), F(2, 2, 2, 2, 2), **_C3, tol=1e-4, ref=_conv3d_ref),
    "conv3d_grad_input": case(F(1, 2, 4, 2, 4), F(2, 2, 2, 2, 2), F(1, 2, 4, 3, 4), **_C3),
    "conv3d_grad_filter": case(F(1, 2, 4, 3, 4), F(1, 2, 4, 2, 4), F(2, 2, 2, 2, 2), **_C3),
    "max_pool3d": case(D(1, 2, 4, 4, 2), **_P3, ref=lambda x, **a: x.reshape(1, 2, 2, 2, 2, 2, 1, 2).max((3, 5, 7))),
    "avg_pool3d": case(F(1, 2, 4, 4, 2), **_P3, ref=lambda x, **a: x.reshape(1, 2, 2, 2, 2, 2, 1, 2).mean((3, 5, 7))),
    "max_pool3d_grad": case(D(1, 2, 4, 4, 2), F(1, 2, 2, 2, 1), **_P3),
    "avg_pool3d_grad": case(F(1, 2, 4, 4, 2), F(1, 2, 2, 2, 1), **_P3),
    "conv2d_transpose": case(F(2, 3, 3, 4), F(3, 2, 3, 2), **_CT, tol=1e-4,
                             ref=lambda x, w, strides, paddings, output_padding: _conv_t(x, w, strides, paddings,
                                                                                        output_padding)),
}
