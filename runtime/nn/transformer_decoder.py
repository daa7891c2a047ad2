"""Paddle 2.x's ``TransformerDecoderLayer``, ``TransformerDecoder`` and ``Transformer``: the same
constructor arguments, sublayer names (so a Paddle state dict's keys load with ``set_state_dict``),
mask conventions and incremental ``cache`` as Paddle's, built from the attention layers of
transformer.py."""
import numpy as np

from ..device import get_default_dtype
from ..ops.composites_extra import triu
from ..ops.creation import full
from ..ops.math import add
from .layer import Layer
from .layers_basic import Dropout, Linear
from .layers_norm import LayerNorm
from .param_attr import ParamAttr
from .transformer import (MultiHeadAttention, TransformerEncoder, TransformerEncoderLayer, _activation,
                          _additive_mask, _attr_list, _copies)


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention over ``memory`` and a feed-forward block, each with a residual
    and LayerNorm (post-norm, or pre-norm with ``normalize_before``), as Paddle's.

    ``weight_attr``/``bias_attr`` may be lists of 3: self-attention, cross-attention, feed-forward.
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``: with ``cache`` (from
    ``gen_cache(memory)``) it returns ``(output, (incremental_cache, static_cache))``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1, activation: str = "relu",
                 attn_dropout: float | None = None, act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: ParamAttr | list | None = None, bias_attr: ParamAttr | bool | list | None = None,
                 layer_norm_eps: float = 1e-5) -> None:
        # the arguments, so that TransformerDecoder builds its other layers afresh (as Paddle does)
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        self.normalize_before = normalize_before
        self.activation = _activation(activation, "TransformerDecoderLayer")
        w, b = _attr_list(weight_attr, 3), _attr_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=w[0], bias_attr=b[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=w[1], bias_attr=b[1])
        self.linear1 = Linear(d_model, dim_feedforward, w[2], b[2])
        self.dropout = Dropout(dropout if act_dropout is None else act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, w[2], b[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1, self.dropout2, self.dropout3 = Dropout(dropout), Dropout(dropout), Dropout(dropout)

    def _block(self, x, norm, dropout, fn):
        """``x + dropout(fn(x'))`` with x' = norm(x) before (pre-norm) or the sum normed after (post-norm)."""
        out = fn(norm(x) if self.normalize_before else x)
        extra = None
        if isinstance(out, tuple):
            out, extra = out
        out = add(x, dropout(out))
        return (out if self.normalize_before else norm(out)), extra

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask, memory_mask = _additive_mask(tgt_mask, tgt), _additive_mask(memory_mask, memory)
        c_self, c_cross = (None, None) if cache is None else cache
        tgt, c_self = self._block(tgt, self.norm1, self.dropout1,
                                  lambda h: self.self_attn(h, h, h, tgt_mask, c_self))
        tgt, c_cross = self._block(tgt, self.norm2, self.dropout2,
                                   lambda h: self.cross_attn(h, memory, memory, memory_mask, c_cross))
        tgt, _ = self._block(tgt, self.norm3, self.dropout3,
                             lambda h: self.linear2(self.dropout(self.activation(self.linear1(h)))))
        return tgt if cache is None else (tgt, (c_self, c_cross))

    def gen_cache(self, memory):
        """``(incremental_cache, static_cache)``: an empty ``Cache`` for the self-attention and a
        ``StaticCache`` of ``memory``'s projected keys and values for the cross-attention."""
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache))


class TransformerDecoder(Layer):
    """``decoder_layer`` then ``num_layers - 1`` layers built with its arguments (fresh
    parameters, as in Paddle), then ``norm`` if given; ``cache`` is a list of one layer cache each."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Layer | None = None) -> None:
        super().__init__()
        self.layers = _copies(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask, memory_mask = _additive_mask(tgt_mask, tgt), _additive_mask(memory_mask, memory)
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                tgt = layer(tgt, memory, tgt_mask, memory_mask)
            else:
                tgt, c = layer(tgt, memory, tgt_mask, memory_mask, cache[i])
                new_caches.append(c)
        tgt = self.norm(tgt) if self.norm is not None else tgt
        return tgt if cache is None else (tgt, new_caches)

    def gen_cache(self, memory, do_zip=False):
        """One ``gen_cache(memory)`` per layer; ``do_zip`` regroups them as (incremental caches,
        static caches)."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr, what):
    """Paddle's Transformer ``weight_attr``/``bias_attr`` list of 1, 2 or 3 -> (encoder's, decoder's)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], list(attr)
    raise ValueError(f"Transformer: length of {what} should be 1, 2 or 3 when it is a list/tuple, got {len(attr)}")


class Transformer(Layer):
    """An encoder (``TransformerEncoder`` with a final LayerNorm) and a decoder
    (``TransformerDecoder`` with a final LayerNorm), or ``custom_encoder``/``custom_decoder``.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)`` returns the decoder's output.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: str = "relu",
                 attn_dropout: float | None = None, act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr: ParamAttr | list | None = None, bias_attr: ParamAttr | bool | list | None = None,
                 custom_encoder: Layer | None = None, custom_decoder: Layer | None = None) -> None:
        super().__init__()
        enc_w, dec_w = _split_attrs(weight_attr, "weight_attr")
        enc_b, dec_b = _split_attrs(bias_attr, "bias_attr")
        args = (d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout, normalize_before)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*args, enc_w, enc_b), num_encoder_layers,
                                              LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*args, dec_w, dec_b), num_decoder_layers,
                                              LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask=_additive_mask(src_mask, src))
        return self.decoder(tgt, memory, tgt_mask=_additive_mask(tgt_mask, tgt),
                            memory_mask=_additive_mask(memory_mask, memory))

    def generate_square_subsequent_mask(self, length):
        """``[length, length]`` float mask of the default dtype: 0 on and below the diagonal, -inf above."""
        return triu(full([length, length], -np.inf, get_default_dtype()), 1)
