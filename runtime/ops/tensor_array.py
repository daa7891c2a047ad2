"""Paddle's tensor arrays: ``rt.tensor.create_array``, ``array_write``, ``array_read``, ``array_length``.

Eagerly a tensor array is a Python list of Tensors, as in Paddle's dygraph (``array_write`` changes
the list in place and returns it).  In a Program it is one Variable holding the items stacked on a
first dim of run-time length, so it can be a ``while`` carry: the ``array_write`` and
``array_read`` ops below read and write item ``i`` of that stacked value, with gradients.  An index
past the end is an IndexError naming the index and the length, never a clamped read or write.
Indices follow the Python list the eager array is: ``-n <= i < n`` reads, ``-n <= i <= n`` writes
(``i == n`` appends).
"""
import numpy as np

import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..dispatch import apply
from . import second_order
from ..dtypes import convert_dtype
from ..registry import GRAD_ONLY, Meta, def_op
from ..tensor import TensorLike


def _index(i, n, what, end_ok):
    """Item index ``i`` (a one-element int array) of an array of ``n`` items, made non-negative."""
    i = np.asarray(i)
    if i.size != 1 or i.dtype.kind not in "iu":
        raise TypeError(f"{what}: the index must be one integer (an int64 tensor of shape [1]), "
                        f"got {i.dtype} of shape {list(i.shape)}")
    k = int(i.reshape(-1)[0])
    last = n if end_ok else n - 1
    if not -n <= k <= last:
        allowed = f"[{-n}, {last}]" if n or end_ok else "none: the array is empty"
        raise IndexError(f"{what}: index {k} is out of range for a tensor array of length {n} "
                         f"(allowed: {allowed}{'; i == length appends' if end_ok else ''})")
    return k + n if k < 0 else k


def _check_item(what, item, x):
    """ValueError unless ``x`` (shape, dtype) can be an item of an array of ``item``-shaped items."""
    if x.dtype != item.dtype or len(x.shape) != len(item.shape) or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(x.shape, item.shape)):
        raise ValueError(f"{what}: the array holds {item.dtype}{list(item.shape)} items, got "
                         f"{x.dtype}{list(x.shape)}; an array's items share one dtype and shape")


def _write_kernel(array, x, i):
    k = _index(i, array.shape[0], "array_write", True)
    if array.shape[0] == 0:  # an empty start's item dims may be placeholders: the first item sets them
        if array.dtype != x.dtype:
            raise ValueError(f"array_write: the array holds {array.dtype} items, got {x.dtype}{list(x.shape)}")
        return x[None].copy()
    _check_item("array_write", array[0], x)
    if k == array.shape[0]:
        return np.concatenate([array, x[None]], axis=0)
    out = array.copy()
    out[k] = x
    return out


def _write_infer(array, x, i):
    if array.shape[0] > 0:  # (the kernel checks an array of run-time length)
        _check_item("array_write", Meta(array.shape[1:], array.dtype), x)
    elif array.dtype != x.dtype:
        raise ValueError(f"array_write: the array holds {array.dtype} items, got {x.dtype}{list(x.shape)}")
    # An array of unknown length may be an empty start whose item dims are placeholders: only a
    # known non-empty one's dims can stand for x's unknown ones.
    dims = [b if a < 0 else a for a, b in zip(x.shape, array.shape[1:])] if array.shape[0] > 0 else list(x.shape)
    return Meta([-1] + dims, array.dtype)


def _write_grad_kernel(array, g, i):
    """The old array's share of the written array's gradient: the overwritten row gets none."""
    n = array.shape[0]
    k = _index(i, n, "array_write", True)
    out = np.array(g[:n], copy=True)
    if k < n:
        out[k] = 0
    return out.reshape(array.shape)


def _read_kernel(array, i):
    return array[_index(i, array.shape[0], "array_read", False)].copy()


def _read_grad_kernel(array, g, i):
    out = np.zeros(array.shape, dtype=g.dtype)
    out[_index(i, array.shape[0], "array_read", False)] = g
    return out


def _write_grad(ctx):
    array, _, i = ctx.inputs
    g = ctx.out_grads[0]
    return [apply("array_write_grad", array, g, i), apply("array_read", g, i), None]


def_op("array_write", ["Array", "X", "I"], ["Out"], kernel=_write_kernel, infer=_write_infer, grad=_write_grad,
       onnx="array_write",
       doc="The stacked tensor array with item I set to X (I == length appends): rt.tensor.array_write.")
def_op("array_write_grad", ["Array", "OutGrad", "I"], ["ArrayGrad"], kernel=_write_grad_kernel,
       infer=lambda a, g, i: Meta(a.shape, g.dtype), no_onnx=GRAD_ONLY, grad=second_order.array_write_grad_grad,
       doc="array_write's gradient for the old array: OutGrad without the overwritten or appended row.")
def_op("array_read", ["Array", "I"], ["Out"], kernel=_read_kernel,
       infer=lambda a, i: Meta(a.shape[1:], a.dtype),
       grad=lambda ctx: [apply("array_read_grad", ctx.inputs[0], ctx.out_grads[0], ctx.inputs[1]), None],
       onnx="array_read", doc="Item I of a stacked tensor array: rt.tensor.array_read.")
def_op("array_read_grad", ["Array", "OutGrad", "I"], ["ArrayGrad"], kernel=_read_grad_kernel,
       infer=lambda a, g, i: Meta(a.shape, g.dtype), no_onnx=GRAD_ONLY, grad=second_order.array_read_grad_grad,
       doc="array_read's gradient: zeros shaped like the array with OutGrad at row I.")


# -- public functions (Paddle's ``paddle.tensor.*``) ---------------------------------------------
def _symbolic(v):
    return isinstance(v, _rt.static.Variable)


def _eager_index(i, what):
    """A Python int from ``i``: an int or a one-element integer Tensor (Paddle's int64 [1])."""
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        return int(i)
    if isinstance(i, TensorLike):
        v = i.numpy()
        if v.size == 1 and v.dtype.kind in "iu":
            return int(v.reshape(-1)[0])
    raise TypeError(f"{what}: the index i must be an int or an integer Tensor of shape [1], got {i!r}")


def stacked(items, like=None):
    """One stacked Variable of the array ``items`` (a list of tensors); an empty list starts as a
    ``[0, ...]`` array of ``like``'s dtype and item shape (unknown dims as 1: the first write sets them)."""
    if items:
        return _rt.stack([v if isinstance(v, TensorLike) else _rt.to_tensor(v) for v in items], axis=0)
    return _rt.zeros([0] + [d if d >= 0 else 1 for d in like.shape], like.dtype)


def create_array(dtype, initialized_list=None):
    """A tensor array: a Python list of the Tensors in ``initialized_list`` (Paddle's dygraph form).

    ``dtype`` is the items' dtype in Paddle's static graphs; here, as in Paddle's dygraph, the
    list keeps its items as they are."""
    convert_dtype(dtype)  # an unknown dtype is still an error
    if initialized_list is None:
        return []
    if not isinstance(initialized_list, (list, tuple)):
        raise TypeError(f"create_array: initialized_list must be a list or tuple, got {type(initialized_list).__name__}")
    for v in initialized_list:
        if not isinstance(v, TensorLike):
            raise TypeError(f"create_array: every item of initialized_list must be a Tensor, got {type(v).__name__}")
    return list(initialized_list)


def array_write(x, i, array=None):
    """Write ``x`` at index ``i`` of ``array`` (a new array when None) and return the array.

    A list is changed in place, as Paddle's dygraph does (``i == len(array)`` appends); with a
    run-time index (a Variable) or a stacked array Variable it is the ``array_write`` op, whose
    result is the new stacked array."""
    if not isinstance(x, TensorLike):
        raise TypeError(f"array_write: x must be a Tensor, got {type(x).__name__}")
    if array is None:
        array = []
    if _symbolic(array) or (_symbolic(i) and isinstance(array, list)):
        arr = array if _symbolic(array) else stacked(array, x)
        return apply("array_write", arr, x, _rt.to_tensor(i) if isinstance(i, int) else i)
    if not isinstance(array, list):
        raise TypeError(f"array_write: array must be a list (a tensor array), got {type(array).__name__}")
    k = _eager_index(i, "array_write")
    if not -len(array) <= k <= len(array):
        raise IndexError(f"array_write: index {k} is out of range for a tensor array of length {len(array)} "
                         f"(allowed: [{-len(array)}, {len(array)}]; i == length appends)")
    if k == len(array):
        array.append(x)
    else:
        array[k] = x
    return array


def array_read(array, i):
    """Item ``i`` of ``array`` (a list, or a stacked array Variable in a Program)."""
    if _symbolic(array) or (_symbolic(i) and isinstance(array, list)):
        if isinstance(array, list) and not array:
            raise IndexError("array_read: the tensor array is empty")
        arr = array if _symbolic(array) else stacked(array)
        return apply("array_read", arr, _rt.to_tensor(i) if isinstance(i, int) else i)
    if not isinstance(array, list):
        raise TypeError(f"array_read: array must be a list (a tensor array), got {type(array).__name__}")
    k = _eager_index(i, "array_read")
    if not -len(array) <= k < len(array):
        raise IndexError(f"array_read: index {k} is out of range for a tensor array of length {len(array)}")
    return array[k]


def array_length(array):
    """The number of items: a Python int for a list (as Paddle's dygraph), an int64 [1] tensor
    for a stacked array Variable (as Paddle's static graphs)."""
    if _symbolic(array):
        return _rt.shape(array)[0:1]
    if not isinstance(array, list):
        raise TypeError(f"array_length: array must be a list (a tensor array), got {type(array).__name__}")
    return len(array)


PUBLIC = {"create_array": create_array, "array_write": array_write, "array_read": array_read,
          "array_length": array_length}
