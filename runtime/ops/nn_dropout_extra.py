"""Paddle's ``F.dropout1d``, ``F.dropout3d``, ``F.alpha_dropout``, ``F.feature_alpha_dropout`` and
``F.rrelu`` as composites of registered ops: their gradients, static form and ONNX export (of the
inference path) are those of the ops they are made of.

Their draws come from the ``dropout`` and ``uniform_random`` ops, which draw from runtime's generator
inside their kernels, so a converted function draws fresh values at every call, and after the same
``rt.seed`` eager and converted code draw the same ones.
"""
from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .common import cast
from .composites_extra import _dim
from .creation import full, ones, uniform, zeros_like
from .logic import greater_equal, where
from .math import add, multiply, scale, subtract
from .shape import squeeze, unsqueeze

# SELU's constants, as Paddle's alpha dropout spells them
_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


def _check_p(p, what):
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        raise TypeError(f"{what}: p must be a float or an int, got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise ValueError(f"{what}: p must be in [0, 1], got {p}")


def _channel_mask(x, dims, p):
    """A [dims] mask of 0 and 1 / (1 - p) from the ``dropout`` op (upscale_in_train), x's dtype."""
    mask, _ = apply("dropout", ones(dims, dtype=x.dtype), dropout_prob=float(p), is_test=False,
                    mode="upscale_in_train")
    return mask


@composite("dropout1d", functional=["dropout1d"])
def dropout1d(input: TensorLike, p: float = 0.5, training: bool = True, inplace: bool = False) -> TensorLike:  # noqa: A002
    """Zero whole channels of a [C, L] or [N, C, L] input with probability ``p`` while ``training`` (kept ones
    scaled by ``1 / (1 - p)``). As Paddle's, one mask over the channels serves every sample of the batch;
    ``inplace`` is accepted and ignored, as Paddle does."""
    _check_p(p, "dropout1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d expects 2D or 3D input, got {input.ndim}D")
    if not training or p == 0:
        return input
    x = unsqueeze(input, 0) if input.ndim == 2 else input
    out = multiply(x, _channel_mask(x, [1, _dim(x, 1), 1], p))
    return squeeze(out, 0) if input.ndim == 2 else out


@composite("dropout3d", functional=["dropout3d"])
def dropout3d(x: TensorLike, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: str | None = None) -> TensorLike:
    """Zero whole channels of an NCDHW (or NDHWC) input with probability ``p`` while ``training`` (the kept
    ones scaled by ``1 / (1 - p)``); one draw per (sample, channel)."""
    if x.ndim != 5:
        raise ValueError(f"dropout3d: dimensions of x should be 5, got {x.ndim}")
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"dropout3d: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")
    _check_p(p, "dropout3d")
    if not training or p == 0:
        return x
    dims = [_dim(x, 0), _dim(x, 1), 1, 1, 1] if data_format == "NCDHW" else [_dim(x, 0), 1, 1, 1, _dim(x, 4)]
    return multiply(x, _channel_mask(x, dims, p))


def _alpha_dropout(x, p, training, feature, what):
    _check_p(p, what)
    if not training:
        return x
    if p == 1:
        return scale(x, 0.0)
    alpha_p = -_ALPHA * _SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    if feature:
        if x.ndim < 2:
            raise ValueError(f"{what}: needs at least a 2-D input, got shape {list(x.shape)}")
        dims = [_dim(x, 0), _dim(x, 1)] + [1] * (x.ndim - 2)
    else:
        dims = [_dim(x, i) for i in range(x.ndim)]
    # Paddle: keep where a float32 uniform draw in [0, 1) is >= p; dropped entries become alpha_p
    keep = cast(greater_equal(uniform(dims, dtype="float32", min=0.0, max=1.0),
                              full([1] * len(dims), float(p), dtype="float32")), x.dtype)
    y = add(multiply(x, keep), scale(subtract(ones([1] * len(dims), dtype=x.dtype), keep), alpha_p))
    return scale(y, float(a), bias=float(b))


@composite("alpha_dropout", functional=["alpha_dropout"])
def alpha_dropout(x: TensorLike, p: float = 0.5, training: bool = True, name: str | None = None) -> TensorLike:
    """Dropout that keeps SELU's zero mean and unit variance while ``training``: dropped entries become
    ``-alpha * scale``, then everything is mapped by ``a * y + b`` (Paddle's constants); the identity otherwise."""
    return _alpha_dropout(x, p, training, False, "alpha_dropout")


@composite("feature_alpha_dropout", functional=["feature_alpha_dropout"])
def feature_alpha_dropout(x: TensorLike, p: float = 0.5, training: bool = True, name: str | None = None) -> TensorLike:
    """``alpha_dropout`` of whole channels: one draw per (sample, channel) of an [N, C, ...] input."""
    return _alpha_dropout(x, p, training, True, "feature_alpha_dropout")


@composite("rrelu", functional=["rrelu"])
def rrelu(x: TensorLike, lower: float = 0.125, upper: float = 1.0 / 3.0, training: bool = True,
          name: str | None = None) -> TensorLike:
    """Randomized leaky ReLU: ``x`` where ``x >= 0``, else ``x * r`` with ``r`` drawn uniformly from
    [``lower``, ``upper``) per element while ``training``, ``r = (lower + upper) / 2`` otherwise."""
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"rrelu: the lower and upper values must be float type, got lower {lower!r}, upper {upper!r}")
    if not 0 <= lower <= 1:
        raise ValueError(f"rrelu: the lower value must be in [0, 1], got {lower}")
    if upper < lower:
        raise ValueError(f"rrelu: the upper value must be greater than the lower value, got lower {lower}, "
                         f"upper {upper}")
    if upper > 1:
        raise ValueError(f"rrelu: the upper value must be no greater than one, got {upper}")
    if training:
        slope = uniform([_dim(x, i) for i in range(x.ndim)], dtype=x.dtype, min=lower, max=upper)
        neg = multiply(x, slope)
    else:
        neg = scale(x, (lower + upper) / 2)
    return where(greater_equal(x, zeros_like(x)), x, neg)
