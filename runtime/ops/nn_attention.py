"""``F.scaled_dot_product_attention`` as Paddle's CPU ("math") path computes it, a composite of
transpose, matmul, softmax and dropout: its gradient, static form and ONNX export are theirs."""
from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .broadcast import expand
from .common import cast
from .composites_extra import triu
from .creation import full_like
from .logic import where
from .math import add, matmul
from .math import scale as _scale  # the function's argument ``scale`` (Paddle's name) shadows the op
from .shape import dims, reshape, squeeze, transpose, unsqueeze


def _repeat_heads(x, repeats):
    """Each of the heads of ``x`` [b, s, h, d] ``repeats`` times in a row (grouped-query attention)."""
    if repeats == 1:
        return x
    b, s, h, d = dims(x)
    return reshape(expand(unsqueeze(x, 3), [b, s, h, repeats, d]), [b, s, h * repeats, d])


@composite("scaled_dot_product_attention", functional=["scaled_dot_product_attention"], float16_in_float32=True)
def scaled_dot_product_attention(query: TensorLike, key: TensorLike, value: TensorLike,
                                 attn_mask: TensorLike | None = None, dropout_p: float = 0.0, is_causal: bool = False,
                                 training: bool = True, backend: str | None = None, scale: float | None = None,
                                 enable_gqa: bool = True, name: str | None = None) -> TensorLike:
    """``softmax(q @ k^T * scale + mask) @ v`` over inputs ``[batch, seq_len, num_heads, head_dim]``
    (or without the batch dim); ``scale`` defaults to ``head_dim ** -0.5``.

    A bool ``attn_mask`` keeps True positions (others get -inf), a float one is added; ``is_causal``
    adds -1e4 above the diagonal instead (the mask is then ignored), as Paddle's CPU path does.
    With ``enable_gqa`` key/value may have fewer heads, each shared by consecutive query heads.
    """
    batched = query.ndim == 4
    if not batched:
        query, key, value = unsqueeze(query, 0), unsqueeze(key, 0), unsqueeze(value, 0)
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise ValueError(f"scaled_dot_product_attention: query, key and value must be [batch, seq_len, num_heads, "
                         f"head_dim], got shapes {query.shape}, {key.shape}, {value.shape}")
    qh, kh, vh = query.shape[2], key.shape[2], value.shape[2]
    if (qh % kh if enable_gqa and kh else qh != kh) or kh != vh:
        raise ValueError(f"scaled_dot_product_attention: {qh} query heads do not fit {kh} key and {vh} value heads "
                         f"(enable_gqa={enable_gqa})")
    repeats = qh // kh if kh else 1
    key, value = _repeat_heads(key, repeats), _repeat_heads(value, repeats)
    head_dim = query.shape[-1]
    s = scale or (head_dim ** -0.5 if head_dim != 0 else 1.0)
    q, k, v = (transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    product = matmul(_scale(q, s), k, transpose_y=True)
    if is_causal:
        product = add(product, triu(full_like(product, -1e4), 1))
    elif attn_mask is not None:
        if str(attn_mask.dtype) == "bool":
            attn_mask = where(attn_mask, full_like(attn_mask, 0.0, dtype=query.dtype),
                              full_like(attn_mask, -float("inf"), dtype=query.dtype))
        product = add(product, cast(attn_mask, product.dtype))
    weights = apply("softmax", product, axis=-1)
    if dropout_p > 0.0 and training:
        weights, _ = apply("dropout", weights, dropout_prob=float(dropout_p), is_test=False, mode="upscale_in_train")
    out = transpose(matmul(weights, v), [0, 2, 1, 3])
    return out if batched else squeeze(out, 0)

