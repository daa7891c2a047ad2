"""dropout, embedding lookup, one_hot and gather_tree (the beam-search backtrace).

``dropout`` draws its mask from ``runtime.random.generator()`` inside the
kernel (``random=True``), so a static Program draws a fresh mask at every run
and the executor never constant-folds it.  The mask is an output, which the
gradient op reuses.  ``embedding``'s gradient is a dense scatter-add into a
table-shaped zero array (rows of ``padding_idx`` get none).
"""
import numpy as np

from ..dispatch import apply
from . import second_order
from ..random import generator
from ..registry import GRAD_ONLY, Meta, def_op
from .common import same_as_grad

_DROPOUT_ATTRS = {"dropout_prob": 0.5, "is_test": False, "mode": "upscale_in_train"}
_MODES = ("upscale_in_train", "downscale_in_infer")


def _check_dropout(p, mode):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if mode not in _MODES:
        raise ValueError(f"dropout mode must be one of {list(_MODES)}, got {mode!r}")


def _dropout_kernel(x, dropout_prob=0.5, is_test=False, mode="upscale_in_train"):
    _check_dropout(dropout_prob, mode)
    if is_test:
        out = x if mode == "upscale_in_train" else x * np.asarray(1.0 - dropout_prob, x.dtype)
        return out.copy(), np.ones(x.shape, dtype=np.uint8)
    mask = (generator().random(x.shape) >= dropout_prob).astype(np.uint8)
    return x * _keep_scale(mask, dropout_prob, mode, x.dtype), mask


def _keep_scale(mask, p, mode, dtype):
    if mode == "upscale_in_train":
        return mask.astype(dtype) * np.asarray(0.0 if p >= 1.0 else 1.0 / (1.0 - p), dtype)
    return mask.astype(dtype)


def _dropout_grad_kernel(mask, g, dropout_prob=0.5, is_test=False, mode="upscale_in_train"):
    if is_test:
        return g.copy() if mode == "upscale_in_train" else g * np.asarray(1.0 - dropout_prob, g.dtype)
    return g * _keep_scale(mask, dropout_prob, mode, g.dtype)


def _dropout_infer(x, dropout_prob=0.5, is_test=False, mode="upscale_in_train"):
    _check_dropout(dropout_prob, mode)
    return Meta(x.shape, x.dtype), Meta(x.shape, "uint8")


def_op("dropout", ["X"], ["Out", "Mask"], attrs=dict(_DROPOUT_ATTRS), kernel=_dropout_kernel,
       infer=_dropout_infer, random=True, onnx="dropout", functional=["dropout"],
       grad=lambda ctx: [None if ctx.out_grads[0] is None else
                         apply("dropout_grad", ctx.outputs[1], ctx.out_grads[0], **ctx.attrs)],
       doc="Zero each element with probability dropout_prob (mask drawn at run time).")
def_op("dropout_grad", ["Mask", "OutGrad"], ["XGrad"], attrs=dict(_DROPOUT_ATTRS), kernel=_dropout_grad_kernel,
       infer=same_as_grad, no_onnx=GRAD_ONLY, grad=second_order.dropout_grad_grad)


# -- embedding -----------------------------------------------------------------------
def _check_ids(ids, num, what):
    if ids.dtype.kind not in "iu":
        raise ValueError(f"{what} expects integer ids (int64), got {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= num):
        bad = ids[(ids < 0) | (ids >= num)].flat[0]
        raise ValueError(f"{what}: id {int(bad)} is out of range [0, {num})")


def _embedding_kernel(ids, w, padding_idx=-1):
    if w.ndim != 2:
        raise ValueError(f"embedding expects a 2-D weight [num_embeddings, dim], got shape {list(w.shape)}")
    _check_ids(ids, w.shape[0], "embedding")
    out = w[ids]
    if padding_idx >= 0:
        out[ids == padding_idx] = 0
    return out


def _embedding_infer(ids, w, padding_idx=-1):
    if len(w.shape) != 2:
        raise ValueError(f"embedding expects a 2-D weight [num_embeddings, dim], got shape {list(w.shape)}")
    if ids.dtype not in ("int32", "int64", "int16", "int8", "uint8"):
        raise ValueError(f"embedding expects integer ids (int64), got {ids.dtype}")
    return Meta(tuple(ids.shape) + (w.shape[1],), w.dtype)


def _embedding_grad_kernel(ids, g, w, padding_idx=-1):
    out = np.zeros_like(w)
    flat = ids.reshape(-1)
    rows = g.reshape(flat.size, w.shape[1])
    if padding_idx >= 0:
        keep = flat != padding_idx
        flat, rows = flat[keep], rows[keep]
    np.add.at(out, flat, rows)
    return out


def_op("embedding", ["Ids", "W"], ["Out"], attrs={"padding_idx": -1}, kernel=_embedding_kernel,
       infer=_embedding_infer,
       grad=lambda ctx: [None, apply("embedding_grad", ctx.inputs[0], ctx.out_grads[0], ctx.inputs[1],
                                     padding_idx=ctx.attrs["padding_idx"])],
       onnx="embedding", functional=["embedding"],
       doc="Row lookup W[Ids]; padding_idx (>= 0) rows read as zeros and get no gradient.")
def_op("embedding_grad", ["Ids", "OutGrad", "W"], ["WGrad"], attrs={"padding_idx": -1},
       kernel=_embedding_grad_kernel, infer=lambda ids, g, w, **_: Meta(w.shape, w.dtype), no_onnx=GRAD_ONLY,
       grad=second_order.embedding_grad_grad)


# -- one_hot -----------------------------------------------------------------------
def _one_hot_kernel(x, num_classes=1):
    if num_classes < 1:
        raise ValueError(f"one_hot: num_classes must be positive, got {num_classes}")
    _check_ids(x, num_classes, "one_hot")
    return (x[..., None] == np.arange(num_classes)).astype(np.float32)


def _one_hot_infer(x, num_classes=1):
    if num_classes < 1:
        raise ValueError(f"one_hot: num_classes must be positive, got {num_classes}")
    return Meta(tuple(x.shape) + (num_classes,), "float32")


def_op("one_hot", ["X"], ["Out"], attrs={"num_classes": 1}, kernel=_one_hot_kernel, infer=_one_hot_infer,
       onnx="one_hot", functional=["one_hot"],
       doc="float32 one-hot encoding along a new last axis.")


def _gather_tree_kernel(ids, parents):
    # Paddle's beam-search backtrace: from the last step's beams, follow each beam's parent back
    out = np.empty_like(ids)
    if ids.shape[0] == 0:
        return out
    out[-1] = ids[-1]
    parent = parents[-1]
    for t in range(ids.shape[0] - 2, -1, -1):
        out[t] = np.take_along_axis(ids[t], parent, axis=-1)
        parent = np.take_along_axis(parents[t], parent, axis=-1)
    return out


def _gather_tree_infer(ids, parents):
    if len(ids.shape) != 3 or len(parents.shape) != 3:
        raise ValueError(f"gather_tree expects ids and parents of shape [max_time, batch, beam], got "
                         f"{list(ids.shape)} and {list(parents.shape)}")
    return Meta(ids.shape, ids.dtype)


def_op("gather_tree", ["Ids", "Parents"], ["Out"], kernel=_gather_tree_kernel, infer=_gather_tree_infer,
       no_onnx="a beam-search backtrace (a loop over time steps) without an ONNX mapping here",
       functional=["gather_tree"],
       doc="The full beam-search sequences: each last-step beam's ids followed back through its parents.")
