"""Connectionist temporal classification loss (Paddle's ``F.ctc_loss``, its ``warpctc`` op): an op whose
numpy kernel runs the forward-backward recursions in log space and returns, beside the loss, its gradient
with respect to the logits (as warp-ctc does), which the gradient rule scales by the loss's output gradient.

As Paddle's, the input is unnormalised logits [max_T, B, C] (softmax is applied inside), the gradient is
``softmax - posterior`` (divided by each sequence's length with ``norm_by_times``, the loss is not), and a
label sequence no alignment can produce gives loss 0 and gradient 0.
"""
import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op


def _logsumexp(a, axis=0):
    m = np.max(a, axis=axis)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(a - np.expand_dims(safe, axis)), axis=axis))


def _one(logits, label, blank, norm_by_times):
    """(loss, gradient) of one sequence: logits [T, C] (float64), label [L]."""
    t_len, c = logits.shape
    logp = logits - _logsumexp(logits, axis=1)[:, None]
    ext = np.full(2 * len(label) + 1, blank, dtype=np.int64)
    ext[1::2] = label
    s_len = len(ext)
    # s may come from s - 2 when it is a label differing from the label two back
    skip = np.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    neg = -np.inf
    alpha = np.full((t_len, s_len), neg)
    alpha[0, 0] = logp[0, ext[0]]
    if s_len > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        one = np.concatenate([[neg], prev[:-1]])
        two = np.where(skip, np.concatenate([[neg, neg], prev[:-2]]), neg)
        alpha[t] = _logsumexp(np.stack([prev, one, two])) + logp[t, ext]
    beta = np.full((t_len, s_len), neg)
    beta[-1, -1] = logp[-1, ext[-1]]
    if s_len > 1:
        beta[-1, -2] = logp[-1, ext[-2]]
    skip_back = np.zeros(s_len, bool)
    skip_back[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate([nxt[1:], [neg]])
        two = np.where(skip_back, np.concatenate([nxt[2:], [neg, neg]]), neg)
        beta[t] = _logsumexp(np.stack([nxt, one, two])) + logp[t, ext]
    log_like = _logsumexp(alpha[-1, -2:]) if s_len > 1 else alpha[-1, -1]
    if not np.isfinite(log_like):  # no alignment produces the label: warp-ctc's 0 and 0
        return 0.0, np.zeros_like(logits)
    # posterior of each class at each step: sum over s with ext[s] == c of alpha * beta / y
    both = alpha + beta - logp[:, ext]
    post = np.full((t_len, c), neg)
    for k in np.unique(ext):
        post[:, k] = _logsumexp(both[:, ext == k], axis=1)
    grad = np.exp(logp) - np.exp(post - log_like)
    if norm_by_times:
        grad = grad / t_len
    return -log_like, grad


def _kernel(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
    t_max, batch, c = logits.shape
    if label.ndim != 2 or label.shape[0] != batch:
        raise ValueError(f"ctc_loss: labels must be [batch, max_label_length] with batch {batch}, got {list(label.shape)}")
    if not 0 <= blank < c:
        raise ValueError(f"ctc_loss: blank {blank} is out of range [0, {c})")
    loss = np.zeros((batch, 1), logits.dtype)
    grad = np.zeros(logits.shape, logits.dtype)
    for b in range(batch):
        t_len, l_len = int(logits_length[b]), int(label_length[b])
        if not 0 < t_len <= t_max or not 0 <= l_len <= label.shape[1]:
            raise ValueError(f"ctc_loss: sequence {b} has input length {t_len} (max {t_max}) and label length "
                             f"{l_len} (max {label.shape[1]})")
        lab = label[b, :l_len].astype(np.int64)
        if (lab == blank).any() or (lab < 0).any() or (lab >= c).any():
            raise ValueError(f"ctc_loss: the labels of sequence {b} must be classes in [0, {c}) other than the "
                             f"blank {blank}, got {lab.tolist()}")
        value, g = _one(logits[:t_len, b].astype(np.float64), lab, blank, norm_by_times)
        loss[b, 0] = value
        grad[:t_len, b] = g
    return loss, grad


def _infer(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
    return Meta((logits.shape[1], 1), logits.dtype), Meta(logits.shape, logits.dtype)


def _grad(ctx):
    saved, g = ctx.outputs[1], ctx.out_grads[0]
    return [apply("multiply", saved, apply("reshape", g, shape=[1, -1, 1])), None, None, None]


def_op("warpctc", ["Logits", "Label", "LogitsLength", "LabelLength"], ["Loss", "WarpCTCGrad"],
       attrs={"blank": 0, "norm_by_times": False}, kernel=_kernel, infer=_infer, grad=_grad,
       no_onnx="ONNX has no CTC loss op; a training loss, not lowered",
       doc="CTC loss [B, 1] of unnormalised logits [T, B, C] and its gradient (warp-ctc's).")
