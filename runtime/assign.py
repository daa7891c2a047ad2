"""``rt.assign`` and ``rt.increment`` (Paddle names), in eager mode and in a Program.

Eager in-place writes keep the tape right the way ``x[k] = v`` does: the
written tensor's previous state moves to an alias that the new value's tape
node reads, so gradients still flow to whatever produced the old value.

In a Program a value is written once, so ``increment`` and ``assign`` return a
new Variable: write ``i = rt.increment(i)``.  The exception is a persistable
destination (a layer buffer bound into the Program), which gets an ``assign``
op writing back to it, as running statistics do.
"""
import numpy as np

from .dispatch import apply
from .framework import Variable, _mode
from .ops.common import as_tensor, assign_to, cast
from .tensor import Tensor, TensorLike

__all__ = ["assign", "increment"]


def _write_in_place(dst, new):
    if not dst.stop_gradient and dst._node is None and not new.stop_gradient:
        raise RuntimeError("a leaf Tensor that needs a gradient (stop_gradient=False) cannot be written in "
                           "place; assign to a copy instead")
    dst._value, dst._node, dst.stop_gradient = new._value, new._node, new.stop_gradient
    return dst


def _static_target(output):
    """A persistable write-back target in a Program, or an error for a plain Variable."""
    if isinstance(output, Variable) and not output.persistable:
        raise TypeError(f"rt.assign(x, output={output.name!r}): a Program writes each value once; use "
                        f"{output.name} = rt.assign(x) instead of writing into an existing Variable")
    return output


def assign(x, output=None):
    """A copy of ``x`` (Tensor, ndarray, list or scalar) that keeps the tape; written into ``output`` if given."""
    if isinstance(x, TensorLike):
        out = apply("assign", x)
    else:
        arr = np.asarray(x)
        if arr.dtype == np.float64 and not isinstance(x, np.ndarray):
            arr = arr.astype(np.float32)  # Python floats are float32, as in to_tensor
        out = as_tensor(arr)
        if isinstance(out, TensorLike) and not isinstance(out, Variable):
            out = Tensor._wrap(np.array(out._value, copy=True))
    if output is None:
        return out
    if _mode.static or isinstance(out, Variable) or isinstance(output, Variable):
        target = _static_target(output)
        return assign_to(cast(out, target.dtype), target)
    if list(out.shape) != list(output.shape):
        raise ValueError(f"rt.assign: x has shape {out.shape} but output has shape {output.shape}")
    return _write_in_place(output, cast(out, output.dtype))


def increment(x, value=1.0, name=None):
    """``x + value`` for a one-element ``x``, written back into ``x`` in eager mode (Paddle's in-place op)."""
    if not isinstance(x, TensorLike):
        raise TypeError(f"rt.increment expects a Tensor, got {type(x).__name__}")
    if -1 not in x.shape and int(np.prod(x.shape)) != 1:
        raise ValueError(f"rt.increment needs a one-element tensor, got shape {x.shape}")
    if _mode.static or isinstance(x, Variable):
        new = apply("scale", x, scale=1.0, bias=float(value))
        if isinstance(x, Tensor) or x.persistable:
            assign_to(new, x)
        return new
    old = Tensor._wrap(x._value, x._node)
    old.stop_gradient = x.stop_gradient
    return _write_in_place(x, apply("scale", old, scale=1.0, bias=float(value)))
