"""More Paddle 2.x functions ported models call, as composites of registered ops (their gradients,
static form and ONNX export are those ops'): ``F.zeropad2d``, ``F.pixel_unshuffle``,
``F.channel_shuffle``, ``F.maxout``, ``diag_embed``, ``diagflat``, ``inner``, ``addmm``, ``cdist``;
and ``bincount``, an op of its own (its output length depends on the data)."""
from collections.abc import Sequence

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, composite, def_op
from .common import cast, constant
from .composite_pad import pad
from .creation import full_like, zeros_like
from .elementwise import abs as abs_
from .elementwise import pow as pow_
from .elementwise import sqrt
from .linalg import diag
from .logic import greater_than, not_equal, where
from .math import add, matmul, multiply, scale, subtract
from .reduce import max as max_
from .reduce import sum as sum_
from .shape import dims, gather, reshape, transpose, unsqueeze

_SPATIAL = {"NCHW": (2, 3), "NHWC": (1, 2)}


def _layout(data_format, what):
    if data_format not in _SPATIAL:
        raise ValueError(f"{what}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


@composite("zeropad2d", functional=["zeropad2d"])
def zeropad2d(x: TensorLike, padding: int | Sequence[int], data_format: str = "NCHW", name: str | None = None) -> TensorLike:
    """Zeros around the two spatial dims: ``padding`` is an int or [left, right, top, bottom]."""
    padding = [padding] * 4 if isinstance(padding, int) else list(padding)
    return pad(x, padding, mode="constant", value=0.0, data_format=data_format)


@composite("pixel_unshuffle", functional=["pixel_unshuffle"])
def pixel_unshuffle(x: TensorLike, downscale_factor: int, data_format: str = "NCHW",
                    name: str | None = None) -> TensorLike:
    """The inverse of pixel_shuffle: [N, C, H * r, W * r] -> [N, C * r * r, H, W] (NCHW)."""
    _layout(data_format, "pixel_unshuffle")
    r = int(downscale_factor)
    if x.ndim != 4 or r <= 0:
        raise ValueError(f"pixel_unshuffle: x must be 4-D and downscale_factor positive, got {x.shape}, {r}")
    if data_format == "NCHW":
        n, c, h, w = dims(x)
        y = transpose(reshape(x, [n, c, h // r, r, w // r, r]), [0, 1, 3, 5, 2, 4])
        return reshape(y, [n, c * r * r, h // r, w // r])
    n, h, w, c = dims(x)
    y = transpose(reshape(x, [n, h // r, r, w // r, r, c]), [0, 1, 3, 5, 2, 4])
    return reshape(y, [n, h // r, w // r, c * r * r])


@composite("channel_shuffle", functional=["channel_shuffle"])
def channel_shuffle(x: TensorLike, groups: int, data_format: str = "NCHW", name: str | None = None) -> TensorLike:
    """Channels regrouped: the channel split into ``groups`` groups, read group by group across them."""
    _layout(data_format, "channel_shuffle")
    if x.ndim != 4:
        raise ValueError(f"channel_shuffle: x must be 4-D, got shape {x.shape}")
    g = int(groups)
    if data_format == "NCHW":
        n, c, h, w = dims(x)
        return reshape(transpose(reshape(x, [n, g, c // g, h, w]), [0, 2, 1, 3, 4]), [n, c, h, w])
    n, h, w, c = dims(x)
    return reshape(transpose(reshape(x, [n, h, w, g, c // g]), [0, 1, 2, 4, 3]), [n, h, w, c])


@composite("maxout", functional=["maxout"])
def maxout(x: TensorLike, groups: int, axis: int = 1, name: str | None = None) -> TensorLike:
    """The max of each run of ``groups`` consecutive channels (``axis`` 1, or -1/3 for NHWC)."""
    if x.ndim != 4 or axis not in (1, -1, 3):
        raise ValueError(f"maxout: x must be 4-D and axis 1, -1 or 3, got shape {x.shape}, axis {axis}")
    axis = axis % 4
    known = dims(x)
    c = x.shape[axis]
    if c >= 0 and c % groups:
        raise ValueError(f"maxout: the channels ({c}) must be divisible by groups ({groups})")
    split = known[:axis] + [known[axis] // groups, groups] + known[axis + 1:]
    return max_(reshape(x, split), axis=axis + 1)


def _eye_pick(n, offset):
    """(mask, pick) of an (n + |offset|)-square: where the ``offset`` diagonal lies and which entry of
    a length-n vector each place reads."""
    size = n + abs(offset)
    rows, cols = np.arange(size)[:, None], np.arange(size)[None, :]
    pick = np.clip(np.broadcast_to(rows if offset >= 0 else cols, (size, size)), 0, max(n - 1, 0))
    return size, constant(cols - rows == offset, "bool"), constant(pick.reshape(-1), "int64")


@composite("diag_embed", api=["diag_embed"], functional=["diag_embed"])
def diag_embed(input: TensorLike, offset: int = 0, dim1: int = -2, dim2: int = -1) -> TensorLike:  # noqa: A002
    """Each last-dim vector of ``input`` on the ``offset`` diagonal of a matrix on dims ``dim1``, ``dim2`` of the
    result (zeros elsewhere)."""
    n = input.shape[-1]
    if n < 0:
        raise ValueError("diag_embed: a last dim of unknown size is not supported")
    nd = input.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise ValueError(f"diag_embed: dim1 and dim2 must differ, got {dim1} and {dim2}")
    size, mask, pick = _eye_pick(n, int(offset))
    lead = dims(input)[:-1]
    full = reshape(gather(input, pick, axis=input.ndim - 1), lead + [size, size])
    out = where(mask, full, zeros_like(full))
    # the two new dims sit last; move them to dim1 and dim2 (dim1 takes the rows)
    rest = iter(range(nd - 2))
    perm = [nd - 2 if i == d1 else nd - 1 if i == d2 else next(rest) for i in range(nd)]
    return out if perm == list(range(nd)) else transpose(out, perm)


@composite("diagflat", api=["diagflat"])
def diagflat(x: TensorLike, offset: int = 0, name: str | None = None) -> TensorLike:
    """``x`` flattened, on the ``offset`` diagonal of a square matrix."""
    return diag(reshape(x, [-1]), offset)


@composite("inner", api=["inner"], methods=["inner"])
def inner(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """Sums of products over the last dim: shape ``x.shape[:-1] + y.shape[:-1]``."""
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    if x.shape[-1] >= 0 and y.shape[-1] >= 0 and x.shape[-1] != y.shape[-1]:
        raise ValueError(f"inner: the last dims of x {x.shape} and y {y.shape} must be equal")
    out = matmul(reshape(x, [-1, x.shape[-1]]), reshape(y, [-1, y.shape[-1]]), transpose_y=True)
    return reshape(out, dims(x)[:-1] + dims(y)[:-1])


@composite("addmm", api=["addmm"], methods=["addmm"], float16_in_float32=True)
def addmm(input: TensorLike, x: TensorLike, y: TensorLike, beta: float = 1.0, alpha: float = 1.0,  # noqa: A002
          name: str | None = None) -> TensorLike:
    """``beta * input + alpha * (x @ y)`` for 2-D ``x``, ``y`` (``input`` broadcast)."""
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"addmm: x and y must be 2-D, got shapes {x.shape} and {y.shape}")
    return add(scale(input, float(beta)), scale(matmul(x, y), float(alpha)))


@composite("cdist", api=["cdist"], float16_in_float32=True)
def cdist(x: TensorLike, y: TensorLike, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name: str | None = None) -> TensorLike:
    """The ``p``-norm distances between the rows of ``x`` [..., P, M] and of ``y`` [..., R, M]: [..., P, R]
    (computed directly for every ``compute_mode``; equal points get distance 0 and gradient 0)."""
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError(f"cdist: x and y must be at least 2-D, got shapes {x.shape} and {y.shape}")
    diff = subtract(unsqueeze(x, -2), unsqueeze(y, -3))
    p = float(p)
    if p == 0:
        return sum_(cast(not_equal(diff, zeros_like(diff)), x.dtype), axis=-1)
    if p == float("inf"):
        return max_(abs_(diff), axis=-1)
    total = sum_(pow_(abs_(diff), p) if p != 2 else multiply(diff, diff), axis=-1)
    # the root's gradient at 0 is infinite: read it only where the total is positive
    positive = greater_than(total, zeros_like(total))
    safe = where(positive, total, full_like(total, 1.0))
    root = sqrt(safe) if p == 2 else pow_(safe, 1.0 / p)
    return where(positive, root, zeros_like(total))


# -- bincount: an op (its length is max(x) + 1, known only from the data) ---------------------------
def _bincount_kernel(x, weights=None, minlength=0):
    if x.size and x.min() < 0:
        raise ValueError("bincount: x must hold non-negative ints")
    if weights is None:
        return np.bincount(x.reshape(-1), minlength=minlength).astype(np.int64)
    dt = weights.dtype if weights.dtype.kind == "f" else np.float64  # Paddle: int weights count in float64
    return np.bincount(x.reshape(-1), weights.reshape(-1).astype(np.float64), minlength).astype(dt)


def _bincount_infer(x, weights=None, minlength=0):
    if weights is None:
        return Meta([-1], "int64")
    return Meta([-1], weights.dtype if weights.dtype.startswith("float") else "float64")


def_op("bincount", ["X", "Weights"], ["Out"], attrs={"minlength": 0}, kernel=_bincount_kernel, infer=_bincount_infer,
       no_onnx="data-dependent output size; not lowered", api=["bincount"], methods=["bincount"],
       doc="How often each value 0..max(x) occurs in the non-negative int x (summing weights if given).")


def bincount(x: TensorLike, weights: TensorLike | None = None, minlength: int = 0,
             name: str | None = None) -> TensorLike:
    """Counts of each value 0..max(x) (at least ``minlength`` of them) in the 1-D non-negative int ``x``;
    with ``weights`` the sums of their weights (float; int weights sum in float64, as Paddle's)."""
    if str(x.dtype) not in ("int32", "int64"):
        raise TypeError(f"bincount: x must be int32 or int64, got {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got shape {x.shape}")
    return apply("bincount", x, weights, minlength=int(minlength))
