"""Paddle's ``rand_like``, ``randn_like``, ``randint_like`` and ``log_normal``: thin wrappers of ``rand``,
``randn``, ``randint`` and ``normal`` (so they draw the same stream, eagerly and in a Program)."""
import runtime as _rt

from .hints import DTypeLike, ShapeLike, TensorLike


def _shape_of(x):
    return _rt.shape(x) if any(d < 0 for d in x.shape) else list(x.shape)


def rand_like(input: TensorLike, name: str | None = None, *, dtype: DTypeLike | None = None) -> TensorLike:  # noqa: A002
    """Uniform [0, 1) samples of ``input``'s shape (its dtype unless ``dtype``)."""
    return _rt.rand(_shape_of(input), dtype=dtype or input.dtype)


def randn_like(x: TensorLike, dtype: DTypeLike | None = None, name: str | None = None) -> TensorLike:
    """Standard normal samples of ``x``'s shape (its dtype unless ``dtype``)."""
    return _rt.randn(_shape_of(x), dtype=dtype or x.dtype)


def randint_like(x: TensorLike, low: int = 0, high: int | None = None, dtype: DTypeLike | None = None,
                 name: str | None = None) -> TensorLike:
    """Random ints in [``low``, ``high``) (``[0, low)`` when ``high`` is None) of ``x``'s shape and dtype."""
    if high is None:
        low, high = 0, low
    out = _rt.randint(low, high, _shape_of(x), dtype="int64")
    return _rt.cast(out, dtype or x.dtype)


def log_normal(mean: float = 1.0, std: float = 2.0, shape: ShapeLike | None = None,
               name: str | None = None) -> TensorLike:
    """``exp`` of normal samples with ``mean`` and ``std`` (float32, ``shape`` [1] by default)."""
    return _rt.exp(_rt.normal(float(mean), float(std), shape))
