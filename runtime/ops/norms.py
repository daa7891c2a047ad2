"""Paddle's vector norms, ``norm`` (also ``rt.linalg.norm``) and ``dist``, as composites of registered
ops (gradients, static form and ONNX export are those of the ops they use).

A root of a zero sum has an infinite derivative; the gradient there is 0, as Paddle's p_norm kernel
gives, by taking the root of 1 where the sum is 0 and selecting 0 afterwards (a ``where`` passes no
gradient to the branch it drops).
"""
import math as _math

from ..hints import TensorLike
from ..registry import composite
from .common import cast
from .creation import full_like
from .elementwise import _floating, pow, sqrt
from .elementwise import abs as abs_
from .linalg import _axes
from .logic import equal, not_equal, where
from .math import subtract
from .reduce import max as max_
from .reduce import min as min_
from .reduce import sum as sum_


def _root(s, k):
    """``s ** k`` (k = 1/2 by sqrt) with a 0 gradient where ``s`` is 0."""
    zero = equal(s, full_like(s, 0.0))
    safe = where(zero, full_like(s, 1.0), s)
    return where(zero, full_like(s, 0.0), sqrt(safe) if k == 0.5 else pow(safe, k))


def p_norm(x, p, axes, keepdim):
    """The vector p-norm of ``x`` over ``axes`` (None: every dim): ``sum(|x|^p)^(1/p)``; ``p`` inf / -inf
    the largest / smallest ``|x|``, 0 the count of nonzeros (``norm`` and ``linalg.vector_norm``)."""
    p = float(p)
    a = abs_(x)
    if p == _math.inf:
        return max_(a, axis=axes, keepdim=keepdim)
    if p == -_math.inf:
        return min_(a, axis=axes, keepdim=keepdim)
    if p == 0:
        return sum_(cast(not_equal(x, full_like(x, 0.0)), str(x.dtype)), axis=axes, keepdim=keepdim)
    if p == 1:
        return sum_(a, axis=axes, keepdim=keepdim)
    if p == 2:
        return _root(sum_(x * x, axis=axes, keepdim=keepdim), 0.5)
    return _root(sum_(pow(a, p), axis=axes, keepdim=keepdim), 1.0 / p)


@composite("norm", api=["norm"], methods=["norm"], float16_in_float32=True)
def norm(x: TensorLike, p: float | str | None = None, axis: int | list[int] | None = None, keepdim: bool = False,
         name: str | None = None) -> TensorLike:
    """The vector ``p``-norm of ``x`` over ``axis`` (all of it by default): ``p`` None or "fro" is the
    2-norm (Frobenius over two axes), a float ``sum(|x|^p)^(1/p)``, ``inf``/``-inf`` the largest/smallest
    ``|x|``, 0 the count of nonzeros; "nuc", or a numeric ``p`` over two axes, the matrix norm
    (``linalg.matrix_norm``)."""
    x = _floating(x)
    axes = None if axis is None else _axes(axis, max(x.ndim, 1), "norm")  # a 0-d x takes axis 0 or -1
    if p is None or p == "fro":
        if axes is not None and len(axes) > 2:
            raise ValueError(f"norm: the Frobenius norm takes one or two axes, got {axes}")
        return _root(sum_(x * x, axis=axes, keepdim=keepdim), 0.5)
    if isinstance(p, str) or (axes is not None and len(axes) == 2):
        if axes is None and x.ndim == 2:
            axes = [0, 1]
        if axes is None or len(axes) != 2:
            raise ValueError(f"norm: the matrix norm p={p!r} takes two axes, got axis={axis!r}")
        from .linalg_norms import matrix_norm  # noqa: PLC0415  (linalg_norms imports this module)
        return matrix_norm(x, p, axes, keepdim)
    if axes is not None and len(axes) > 2:
        raise ValueError(f"norm: a vector norm takes one axis (or none: all of x), got {axes}")
    return p_norm(x, p, axes, keepdim)


@composite("dist", api=["dist"], methods=["dist"], float16_in_float32=True)
def dist(x: TensorLike, y: TensorLike, p: float = 2, name: str | None = None) -> TensorLike:
    """The ``p``-norm of ``x - y`` (broadcast) over all its entries, a 0-d tensor."""
    return norm(subtract(_floating(x), _floating(y)), p=float(p))
