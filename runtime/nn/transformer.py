"""Paddle 2.x's attention layers: ``MultiHeadAttention``, ``TransformerEncoderLayer`` and
``TransformerEncoder`` (same constructor arguments, sublayer names, mask conventions and
incremental ``cache``), built from Linear, matmul, softmax, LayerNorm and Dropout, so they
convert, train and export like any other layers. Shapes are batch-first: ``[batch, length, embed_dim]``.
The decoder and ``Transformer`` are in transformer_decoder.py."""
import collections
import copy

from .. import ops  # noqa: F401  (the functions below are registered by the op modules)
from ..hints import TensorLike
from ..ops.common import cast
from ..ops.logic import where
from ..ops.creation import full, full_like
from ..ops.math import add, matmul, scale
from ..ops.shape import concat, dims, reshape, transpose
from . import functional as F
from .container import LayerList
from .layer import Layer
from .layers_basic import Dropout, Linear
from .layers_norm import LayerNorm
from .param_attr import ParamAttr


def _additive_mask(mask, like):
    """Paddle's attn_mask as a float to add to the scores: a bool mask keeps True positions (others
    get -1e9), an int mask gives ``(mask - 1) * 1e9`` as Paddle's; a float mask is added as it is."""
    if mask is None:
        return None
    if str(mask.dtype) in ("float16", "float32", "float64"):
        return cast(mask, like.dtype) if mask.dtype != like.dtype else mask
    if str(mask.dtype) != "bool":
        return scale(scale(cast(mask, like.dtype), 1.0, -1.0), 1e9)
    zeros = full_like(mask, 0.0, dtype=like.dtype)
    return where(mask, zeros, full_like(mask, -1e9, dtype=like.dtype))


def _attr_list(attr, n):
    """Paddle's per-part ParamAttrs: a list/tuple of ``n`` (one per part), else ``attr`` for every part."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise ValueError(f"length of param_attr should be {n} when it is a list/tuple, got {len(attr)}")
        return [None if a is True else a for a in attr]
    attrs = [copy.deepcopy(attr) for _ in range(n)]
    for i, a in enumerate(attrs):  # a named ParamAttr names each part apart, as Paddle's ("w_0", "w_1"...)
        if isinstance(a, ParamAttr) and a.name:
            a.name = f"{a.name}_{i}"
    return attrs


def _activation(name, what):
    fn = getattr(F, name, None)
    if not callable(fn):
        raise ValueError(f"{what}: activation {name!r} is not a function of nn.functional")
    return fn


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads (Paddle's ``nn.MultiHeadAttention``).

    ``forward(query, key=None, value=None, attn_mask=None, cache=None)``: key and value default to
    query; returns the output, plus the attention weights when ``need_weights``, plus the new cache
    when ``cache`` is given: a ``Cache`` (keys and values of earlier steps, the new ones appended) or
    a ``StaticCache`` (projected keys and values used instead of ``key`` and ``value``), as Paddle's.
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

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
        b, n = dims(x)[:2]
        return transpose(reshape(x, [b, n, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """The projected keys and values split into heads: ``[batch, num_heads, length, head_dim]``."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """A ``StaticCache`` of ``compute_kv(key, value)``; or a ``Cache``: empty (length 0, batch
        from ``key``) when ``value`` is None, else holding ``key`` and ``value`` as they are."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            empty = full([dims(key)[0], self.num_heads, 0, self.head_dim], 0, key.dtype)
            return self.Cache(empty, empty)
        return self.Cache(key, value)

    def forward(self, query: TensorLike, key: TensorLike | None = None, value: TensorLike | None = None,
                attn_mask: TensorLike | None = None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k, v = concat([cache.k, k], axis=2), concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        scores = matmul(scale(q, self.head_dim ** -0.5), k, transpose_y=True)
        mask = _additive_mask(attn_mask, scores)
        if mask is not None:
            scores = add(scores, mask)
        weights = F.softmax(scores, axis=-1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        b, n = dims(query)[:2]
        out = reshape(transpose(matmul(weights, v), [0, 2, 1, 3]), [b, n, self.embed_dim])
        outs = [self.out_proj(out)] + ([weights] if self.need_weights else []) + ([cache] if cache is not None else [])
        return outs[0] if len(outs) == 1 else tuple(outs)


class TransformerEncoderLayer(Layer):
    """Self-attention and a feed-forward block, each with a residual and LayerNorm (post-norm, or
    pre-norm with ``normalize_before``), as Paddle's ``nn.TransformerEncoderLayer``."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1, activation: str = "relu",
                 attn_dropout: float | None = None, act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: ParamAttr | list | None = None, bias_attr: ParamAttr | bool | list | None = None,
                 layer_norm_eps: float = 1e-5) -> None:
        # the arguments, so that TransformerEncoder builds its other layers afresh (as Paddle does)
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        self.normalize_before, self.activation = normalize_before, _activation(activation, "TransformerEncoderLayer")
        w, b = _attr_list(weight_attr, 2), _attr_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout if attn_dropout is None else attn_dropout,
                                            weight_attr=w[0], bias_attr=b[0])
        self.linear1 = Linear(d_model, dim_feedforward, w[1], b[1])
        self.dropout = Dropout(dropout if act_dropout is None else act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, w[1], b[1])
        self.norm1, self.norm2 = LayerNorm(d_model, layer_norm_eps), LayerNorm(d_model, layer_norm_eps)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _additive_mask(src_mask, src)
        h = self.norm1(src) if self.normalize_before else src
        attn = self.self_attn(h, h, h, src_mask, cache)
        if cache is not None:
            attn, cache = attn
        src = add(src, self.dropout1(attn))
        if not self.normalize_before:
            src = self.norm1(src)
        h = self.norm2(src) if self.normalize_before else src
        src = add(src, self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h))))))
        src = src if self.normalize_before else self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src):
        """An empty incremental ``MultiHeadAttention.Cache`` for the self-attention."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


def _copies(layer, n):
    """``layer`` then ``n - 1`` layers built afresh from its arguments (Paddle's encoder/decoder
    stacks); a layer that does not record them is deep-copied."""
    config = getattr(layer, "_config", None)
    return LayerList([layer if i == 0 else type(layer)(**config) if config is not None else copy.deepcopy(layer)
                      for i in range(n)])


class TransformerEncoder(Layer):
    """``encoder_layer`` then ``num_layers - 1`` layers built with its arguments (fresh parameters,
    as in Paddle), then ``norm`` if given."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Layer | None = None) -> None:
        super().__init__()
        self.layers = _copies(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _additive_mask(src_mask, src)
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                src = layer(src, src_mask)
            else:
                src, c = layer(src, src_mask, cache[i])
                new_caches.append(c)
        src = self.norm(src) if self.norm is not None else src
        return src if cache is None else (src, new_caches)

    def gen_cache(self, src):
        """One empty incremental cache per layer."""
        return [layer.gen_cache(src) for layer in self.layers]
