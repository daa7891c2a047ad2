"""``paddle.linalg.vector_norm``, ``matrix_norm`` and ``cond`` as composites of registered ops (the
singular-value norms through the ``svd`` op, whose gradient assumes distinct singular values)."""
import math

from ..hints import TensorLike
from ..registry import composite
from .common import cast
from .elementwise import _floating
from .elementwise import abs as abs_
from .linalg import _axes
from .norms import _root, p_norm
from .reduce import max as max_
from .reduce import min as min_
from .reduce import sum as sum_
from .shape import transpose, unsqueeze


@composite("vector_norm", float16_in_float32=True)
def vector_norm(x: TensorLike, p: float = 2.0, axis: int | list[int] | None = None, keepdim: bool = False,
                name: str | None = None, dtype=None) -> TensorLike:
    """``sum(|x|^p)^(1/p)`` over ``axis`` (an int, a list of ints, or None: every dim); ``p`` inf / -inf
    the largest / smallest ``|x|``, 0 the count of nonzeros."""
    x = _floating(x) if dtype is None else cast(x, dtype)
    axes = None if axis is None else _axes(axis, max(x.ndim, 1), "vector_norm")
    return p_norm(x, p, axes, keepdim)


def moved_last2(x, r, c):
    """``x`` with dims ``r`` and ``c`` moved last (in that order)."""
    perm = [i for i in range(x.ndim) if i not in (r, c)] + [r, c]
    return x if perm == list(range(x.ndim)) else transpose(x, perm)


def _svdvals(x):
    from .linalg_api import svdvals  # noqa: PLC0415  (linalg_api imports this module's neighbours)
    return svdvals(x)


@composite("matrix_norm", float16_in_float32=True)
def matrix_norm(x: TensorLike, p: float | str = "fro", axis: list[int] = (-2, -1), keepdim: bool = False,
                name: str | None = None) -> TensorLike:
    """The matrix norm of the (``axis[0]``, ``axis[1]``) planes: "fro", "nuc" (sum of singular values),
    2 / -2 (largest / smallest singular value), 1 / -1 (max / min column sum of |x|), inf / -inf (max /
    min row sum)."""
    x = _floating(x)
    axes = _axes(list(axis), x.ndim, "matrix_norm")
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"matrix_norm: axis must be two different dims, got {list(axis)}")
    r, c = axes
    if p == "fro":
        return _root(sum_(x * x, axis=axes, keepdim=keepdim), 0.5)
    if p == "nuc" or p in (2, -2):
        s = _svdvals(moved_last2(x, r, c))
        out = sum_(s, axis=-1) if p == "nuc" else (max_ if p == 2 else min_)(s, axis=-1)
        if keepdim:
            for a in sorted(axes):
                out = unsqueeze(out, a)
        return out
    if isinstance(p, str) or p not in (1, -1, math.inf, -math.inf):
        raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {p!r}")
    inner, outer = (r, c) if p in (1, -1) else (c, r)   # 1: sum over rows (per column), inf: over columns
    sums = sum_(abs_(x), axis=inner, keepdim=True)
    out = (max_ if p > 0 else min_)(sums, axis=outer, keepdim=True)
    if not keepdim:
        from .shape import squeeze  # noqa: PLC0415
        out = squeeze(out, sorted(axes))
    return out


@composite("linalg_cond", methods=["cond"])  # "cond" is the control-flow op
def cond(x: TensorLike, p: float | str | None = None, name: str | None = None) -> TensorLike:
    """The condition number of each square (for p other than 2 / -2 / None) matrix: ``s_max / s_min``
    for None or 2, ``s_min / s_max`` for -2, else ``norm(x, p) * norm(inv(x), p)``."""
    from ..dispatch import apply  # noqa: PLC0415
    x = _floating(x)
    if p is None or p in (2, -2):
        s = _svdvals(x)
        hi, lo = max_(s, axis=-1), min_(s, axis=-1)
        return apply("divide", lo, hi) if p == -2 else apply("divide", hi, lo)
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise ValueError(f"cond: p must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {p!r}")
    return apply("multiply", matrix_norm(x, p), matrix_norm(apply("inverse", x), p))
