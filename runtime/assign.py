"""``rt.assign``, ``rt.increment`` and ``rt.clone`` (Paddle names), in eager mode and in a Program.

Eager in-place writes keep the tape right the way ``x[k] = v`` does: the
written tensor's previous state moves to an alias that the new value's tape
node reads, so gradients still flow to whatever produced the old value.

In a Program every value is written once, so an in-place write appends the
op and then makes the written Variable object stand for the op's output (the
two Variables swap names): later uses of ``x`` in the same block see the new
value, exactly as eager code does.  A persistable destination (a layer
buffer bound into the Program) gets an ``assign`` op writing back to it, as
running statistics do.  Writing in place into a value from an enclosing block
(inside a converted ``if``/``while`` body) cannot be expressed that way and
raises a TypeError asking for ``x = rt.increment(x)``.  A block input (a loop
variable, a fed input) is not rebound: there only the returned value is new.
"""
import numpy as np

from .dispatch import apply
from . import tensor as _tensor  # read at call time: Tensor is made after the op declarations
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from .dtypes import DEFAULT_FLOAT
from .trace_state import _mode
from .registry import composite
from .ops.common import as_tensor, assign_to, cast
from .tensor import TensorLike
from .hints import Operand

__all__ = ["assign", "increment", "clone"]


def _write_in_place(dst, new):
    if not dst.stop_gradient and dst._node is None and not new.stop_gradient:
        raise RuntimeError("a leaf Tensor that needs a gradient (stop_gradient=False) cannot be written in "
                           "place; assign to a copy instead")
    dst._value, dst._node, dst.stop_gradient = new._value, new._node, new.stop_gradient
    return dst


def _rebind(var, new, what):
    """Make the Variable object ``var`` stand for ``new``'s value from now on (an in-place write).

    Only a value computed by an op of the current block, or a fed input, is rebound: other block
    inputs (loop-carried placeholders) are named by the builder that made them, so for those the
    new Variable is returned as it is, which is right for the usual ``i = rt.increment(i)``.
    """
    from .inplace import refuse_grad_write, write_refused  # noqa: PLC0415  (inplace is built on the tensor classes)
    if write_refused(var) is not None:  # a converter's copy of its value would miss the write
        raise TypeError(write_refused(var))
    refuse_grad_write(var)
    block = _rt.framework.current_block()
    if var.block is not block:
        raise TypeError(f"{what} writes in place into a value from an enclosing block ('{var.name}'), which a "
                        f"Program cannot express; use the returned value instead "
                        f"(x = {what.split('(')[0]}(x ...))")
    if getattr(var, "is_data", False):  # a fed input (an argument of a converted function), with its feed's attributes
        from .inplace import adopt_input  # noqa: PLC0415  (inplace is built on the tensor classes)
        return adopt_input(var, new, what)
    if not any(var.name in op.output_arg_names for op in block.ops):
        return new
    old_name, new_name = var.name, new.name
    var.name, new.name = new_name, old_name
    block.vars[new_name], block.vars[old_name] = var, new
    var.stop_gradient = new.stop_gradient
    return var


def _static_write(out, target, what):
    if isinstance(target, _rt.framework.Variable) and not target.persistable:
        return _rebind(target, out, what)
    return assign_to(cast(out, target.dtype), target, what)


def assign(x: Operand | list, output: TensorLike | None = None) -> TensorLike:
    """A copy of ``x`` (Tensor, ndarray, list or scalar) that keeps the tape; written into ``output`` if given."""
    if isinstance(x, TensorLike):
        out = apply("assign", x)
    elif isinstance(x, (list, tuple)) and any(isinstance(v, TensorLike) for v in x):
        out = _rt.to_tensor(x)  # the items' values (stacked while a Program is built), as Paddle's eager assign
    else:
        # a Python or numpy scalar is a 1-element vector, as Paddle's assign makes it (np.array([x]))
        arr = np.array([x]) if np.isscalar(x) and not isinstance(x, (str, bytes)) else np.asarray(x)
        if arr.dtype == np.float64 and not isinstance(x, np.ndarray):
            arr = arr.astype(DEFAULT_FLOAT[0].np)  # Python floats take the default float dtype, as in to_tensor
        out = as_tensor(arr)
        if isinstance(out, TensorLike) and not isinstance(out, _rt.framework.Variable):
            out = _tensor.Tensor._wrap(np.array(out._value, copy=True))
    if output is None:
        return out
    if _mode.static or isinstance(out, _rt.framework.Variable) or isinstance(output, _rt.framework.Variable):
        return _static_write(out, output, "rt.assign(x, output)")
    return _write_in_place(output, out)  # output takes x's value, shape and dtype, as in Paddle


def increment(x: TensorLike, value: float = 1.0, name: str | None = None) -> TensorLike:
    """``x + value`` for a one-element ``x``, written back into ``x`` in eager mode (Paddle's in-place op)."""
    if not isinstance(x, TensorLike):
        raise TypeError(f"rt.increment expects a Tensor, got {type(x).__name__}")
    if -1 not in x.shape and int(np.prod(x.shape)) != 1:
        raise ValueError(f"rt.increment needs a one-element tensor, got shape {x.shape}")
    if _mode.static or isinstance(x, _rt.framework.Variable):
        new = apply("scale", x, scale=1.0, bias=float(value))
        if isinstance(x, _tensor.Tensor) or x.persistable:
            assign_to(new, x)
            return new
        return _rebind(x, new, "rt.increment(x)")
    old = _tensor.Tensor._wrap(x._value, x._node)
    old.stop_gradient = x.stop_gradient
    return _write_in_place(x, apply("scale", old, scale=1.0, bias=float(value)))


@composite("clone", api=["clone"], methods=["clone"])
def clone(x: TensorLike, name: str | None = None) -> TensorLike:
    """A copy of ``x`` that stays on the tape (Paddle's ``paddle.clone`` / ``Tensor.clone``)."""
    return apply("assign", x)
