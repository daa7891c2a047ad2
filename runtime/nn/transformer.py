"""Paddle 2.x's attention layers: ``MultiHeadAttention``, ``TransformerEncoderLayer`` and
``TransformerEncoder`` (same constructor arguments, sublayer names and mask conventions), built
from Linear, matmul, softmax, LayerNorm and Dropout, so they convert, train and export like any
other layers. Shapes are batch-first: ``[batch, length, embed_dim]``."""
import copy

from .. import ops  # noqa: F401  (the functions below are registered by the op modules)
from ..hints import TensorLike
from ..ops.common import cast
from ..ops.logic import where
from ..ops.creation import full_like
from ..ops.math import add, matmul, scale
from ..ops.shape import reshape, shape, transpose
from . import functional as F
from .container import LayerList
from .layer import Layer
from .layers_basic import Dropout, Linear
from .layers_norm import LayerNorm
from .param_attr import ParamAttr


def _dims(x):
    """The dims of ``x``: ints where known, 1-element int Tensors where known only at run time."""
    return [d if d >= 0 else shape(x)[i] for i, d in enumerate(x.shape)]


def _additive_mask(mask, like):
    """Paddle's attn_mask as a float to add to the scores: bool/int masks keep True/nonzero
    positions (others get -1e9); a float mask is added as it is."""
    if mask is None:
        return None
    if str(mask.dtype) in ("float16", "float32", "float64"):
        return cast(mask, like.dtype) if mask.dtype != like.dtype else mask
    keep = cast(mask, "bool")
    zeros = full_like(keep, 0.0, dtype=like.dtype)
    return where(keep, zeros, full_like(keep, -1e9, dtype=like.dtype))


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads (Paddle's ``nn.MultiHeadAttention``).

    ``forward(query, key=None, value=None, attn_mask=None)``: key and value default to query;
    returns the output, plus the attention weights when ``need_weights``. ``cache`` is not supported.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, kdim: int | None = None,
                 vdim: int | None = None, need_weights: bool = False, weight_attr: ParamAttr | None = None,
                 bias_attr: ParamAttr | bool | None = None) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim {embed_dim} is not divisible by num_heads {num_heads}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(kdim or embed_dim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(vdim or embed_dim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x):
        b, n = _dims(x)[:2]
        return transpose(reshape(x, [b, n, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def forward(self, query: TensorLike, key: TensorLike | None = None, value: TensorLike | None = None,
                attn_mask: TensorLike | None = None, cache: None = None):
        if cache is not None:
            raise NotImplementedError("MultiHeadAttention: cache is not supported")
        key = query if key is None else key
        value = query if value is None else value
        q, k, v = self._heads(self.q_proj(query)), self._heads(self.k_proj(key)), self._heads(self.v_proj(value))
        scores = matmul(scale(q, self.head_dim ** -0.5), k, transpose_y=True)
        mask = _additive_mask(attn_mask, scores)
        if mask is not None:
            scores = add(scores, mask)
        weights = F.softmax(scores, axis=-1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        b, n = _dims(query)[:2]
        out = reshape(transpose(matmul(weights, v), [0, 2, 1, 3]), [b, n, self.embed_dim])
        out = self.out_proj(out)
        return (out, weights) if self.need_weights else out


class TransformerEncoderLayer(Layer):
    """Self-attention and a feed-forward block, each with a residual and LayerNorm (post-norm, or
    pre-norm with ``normalize_before``), as Paddle's ``nn.TransformerEncoderLayer``."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1, activation: str = "relu",
                 attn_dropout: float | None = None, act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: ParamAttr | None = None, bias_attr: ParamAttr | bool | None = None) -> None:
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError(f"TransformerEncoderLayer: activation must be 'relu' or 'gelu', got {activation!r}")
        self.normalize_before, self.activation = normalize_before, activation
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout if attn_dropout is None else attn_dropout,
                                            weight_attr=weight_attr, bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr)
        self.dropout = Dropout(dropout if act_dropout is None else act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr)
        self.norm1, self.norm2 = LayerNorm(d_model), LayerNorm(d_model)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)

    def forward(self, src, src_mask=None, cache=None):
        if cache is not None:
            raise NotImplementedError("TransformerEncoderLayer: cache is not supported")
        act = F.relu if self.activation == "relu" else F.gelu
        h = self.norm1(src) if self.normalize_before else src
        src = add(src, self.dropout1(self.self_attn(h, h, h, src_mask)))
        if not self.normalize_before:
            src = self.norm1(src)
        h = self.norm2(src) if self.normalize_before else src
        src = add(src, self.dropout2(self.linear2(self.dropout(act(self.linear1(h))))))
        return src if self.normalize_before else self.norm2(src)


class TransformerEncoder(Layer):
    """``num_layers`` copies of ``encoder_layer`` (the first is the given layer itself, as in
    Paddle), then ``norm`` if given."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Layer | None = None) -> None:
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else copy.deepcopy(encoder_layer)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        if cache is not None:
            raise NotImplementedError("TransformerEncoder: cache is not supported")
        for layer in self.layers:
            src = layer(src, src_mask)
        return self.norm(src) if self.norm is not None else src
