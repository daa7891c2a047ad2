"""``rt.incubate`` (Paddle 2.x's ``paddle.incubate``) for ported model code: the fused masked softmaxes
GPT-style attention calls (Paddle runs them on GPU only; here they are the softmax they fuse, made of
registered ops), ``graph_send_recv`` and the ``segment_*`` reductions graph networks call (the
``rt.geometric`` functions under their earlier names) and ``identity_loss``."""
import runtime as _rt

from ..geometric import segment_max, segment_mean, segment_min, segment_sum, send_u_recv
from ..hints import TensorLike

__all__ = ["softmax_mask_fuse", "softmax_mask_fuse_upper_triangle", "graph_send_recv", "segment_sum",
           "segment_mean", "segment_max", "segment_min", "identity_loss"]


def softmax_mask_fuse(x: TensorLike, mask: TensorLike, name: str | None = None) -> TensorLike:
    """``softmax(x + mask)`` over the last axis (``mask`` broadcast to ``x``: 0 to keep, -10000 or -inf
    to drop)."""
    return _rt.nn.functional.softmax(_rt.add(x, mask), axis=-1)


def softmax_mask_fuse_upper_triangle(x: TensorLike) -> TensorLike:
    """A causal attention's softmax: over the last axis of ``x`` [..., S, S], each row ``i`` over its
    first ``i + 1`` entries, the entries above the diagonal 0."""
    s = _rt.shape(x)[-1]
    keep = _rt.tril(_rt.ones(_rt.stack([s, s]), dtype="bool"))
    return _rt.nn.functional.softmax(_rt.where(keep, x, _rt.full_like(x, float("-inf"))), axis=-1)


def graph_send_recv(x: TensorLike, src_index: TensorLike, dst_index: TensorLike, pool_type: str = "sum",
                    out_size: int | TensorLike | None = None, name: str | None = None) -> TensorLike:
    """``rt.geometric.send_u_recv`` under its Paddle 2.x name (``pool_type``: "sum", "mean", "max", "min")."""
    return send_u_recv(x, src_index, dst_index, reduce_op=pool_type, out_size=out_size)


_REDUCTIONS = {0: "sum", 1: "mean", 2: "none", "sum": "sum", "mean": "mean", "none": "none"}


def identity_loss(x: TensorLike, reduction: str | int = "none") -> TensorLike:
    """``x`` marked as the loss (Paddle's IPU hint): its sum, mean, or ``x`` itself ("none"); ``reduction``
    also as Paddle's 0, 1, 2."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"identity_loss: reduction must be 'sum', 'mean' or 'none' (or 0, 1, 2), got {reduction!r}")
    how = _REDUCTIONS[reduction]
    return _rt.sum(x) if how == "sum" else _rt.mean(x) if how == "mean" else x
