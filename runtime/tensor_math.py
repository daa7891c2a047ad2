"""``paddle.tensor.math``: the math functions under the module path Paddle's model code reaches them
by, including the legacy axis-aligned elementwise helpers (``_multiply_with_axis``...) that Paddle's
seq2seq and beam-search models call: ``y`` (of lower rank) is aligned with ``x`` starting at ``axis``
and broadcast over the remaining dims, as the fluid ``elementwise_*`` ops did."""
import sys

from .ops.common import TensorLike

__all__ = ["_add_with_axis", "_divide_with_axis", "_multiply_with_axis", "_subtract_with_axis"]


def _with_axis(op_name, x, y, axis):
    op = getattr(sys.modules[__package__], op_name)
    if axis == -1 or not (isinstance(x, TensorLike) and isinstance(y, TensorLike)) or len(x.shape) == len(y.shape):
        return op(x, y)
    reshape = sys.modules[__package__].reshape
    if len(x.shape) > len(y.shape):
        y = reshape(y, [1] * axis + list(y.shape) + [1] * (len(x.shape) - len(y.shape) - axis))
    else:
        x = reshape(x, [1] * axis + list(x.shape) + [1] * (len(y.shape) - len(x.shape) - axis))
    return op(x, y)


def _add_with_axis(x, y, axis=-1, name=None):
    """``x + y`` with ``y`` aligned to ``x``'s dims from ``axis`` (-1: plain broadcasting)."""
    return _with_axis("add", x, y, axis)


def _subtract_with_axis(x, y, axis=-1, name=None):
    """``x - y`` with ``y`` aligned to ``x``'s dims from ``axis`` (-1: plain broadcasting)."""
    return _with_axis("subtract", x, y, axis)


def _multiply_with_axis(x, y, axis=-1, name=None):
    """``x * y`` with ``y`` aligned to ``x``'s dims from ``axis`` (-1: plain broadcasting)."""
    return _with_axis("multiply", x, y, axis)


def _divide_with_axis(x, y, axis=-1, name=None):
    """``x / y`` with ``y`` aligned to ``x``'s dims from ``axis`` (-1: plain broadcasting)."""
    return _with_axis("divide", x, y, axis)


def __getattr__(name):
    """The public math functions (``paddle.tensor.math.add``...) are the runtime's own."""
    value = None if name.startswith("_") else getattr(sys.modules[__package__], name, None)
    if callable(value):
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
