"""`sum(lst)`, `max(lst)` / `min(lst)` and `rt.add_n(lst)` of a list built in a tensor-dependent
loop (a TensorArray: the items stacked on a first dim known only when the Program runs).

Each gives what eager Python gives with the same kernels: `sum` adds the items one by one from
`start` (a `while` op over the rows, so `((0 + a0) + a1) + ...` in that order, as `builtins.sum`),
`max`/`min` keep the first item no later one beats (`where` in a `while` op, as the builtins
compare one-element tensors), `add_n` is the `sum_n` kernel's own sum over the stacked items.
Where eager raises on an empty list (`max`, `min`, `add_n`), an `assert` op raises at run time
naming the user's line.
"""
import builtins

import runtime as rt
import runtime.static  # noqa: F401  (rt.static.nn.while_loop)
from dy2st.operators.assert_print import Assert
from dy2st.operators.common import _length, _with_location
from dy2st.operators.list_items import mark_item
from dy2st.operators.tensor_array import TensorArray


def array_rows(t):
    """The items of a stacked array whose length is known now, as a Python list."""
    return [t[k] for k in range(t.shape[0])]


def _fold_rows(t, init, step, first):
    """``step(acc, row)`` over rows ``first ..`` of ``t`` from ``init``, in a `while` op."""
    n = _length(t)

    def cond(k, acc):
        return rt.less_than(k, n)

    def body(k, acc):
        return [k + 1, step(acc, rt.tensor.array_read(t, k))]

    return rt.static.nn.while_loop(cond, body, [rt.full([], first, "int64"), init])[1]


def _item_dims(t):
    """The items' shape: a list of ints, or a shape tensor's elements where unknown."""
    if all(d >= 0 for d in t.shape[1:]):
        return list(t.shape[1:])
    return rt.shape(t)[1:]


def _not_empty(t, what, error):
    """An `assert` op: the list has an item when the Program runs (eagerly ``what`` raises ``error``)."""
    Assert(rt.greater_than(_length(t), rt.full([], 0, "int64")),
           f"{what} of a list built in a tensor-dependent loop that appended nothing "
           "(eagerly Python raises here too)", error=error)


def Sum(iterable, /, start=0):
    """``sum(iterable, start)``; a list built in a tensor loop is added item by item, from ``start``."""
    if not isinstance(iterable, TensorArray):
        return builtins.sum(iterable, start)
    t, kind = iterable.tensor, iterable.kind
    if kind == "bool":  # Python bools add as the ints 0 and 1 (bool tensors would `or`)
        t, kind = rt.cast(t, "int64"), "int"
    if t.shape[0] >= 0:
        return builtins.sum([mark_item(v, kind) for v in array_rows(t)], start)
    if type(start) in (int, float) and (type(start) is int or t.dtype in ("float16", "float32", "float64")):
        # eagerly `0 + a0` keeps the item's dtype; an empty list's 0 becomes zeros shaped like an item
        init = rt.full(_item_dims(t), start, t.dtype)
    elif rt.is_tensor(start) and start.dtype == t.dtype and list(start.shape) == list(t.shape[1:]):
        init = start
    else:
        got = f"a {start.dtype} tensor of shape {list(start.shape)}" if rt.is_tensor(start) else repr(start)
        raise TypeError(_with_location(
            f"sum() of a list built in a tensor-dependent loop ({t.dtype}{list(t.shape[1:])} items) from "
            f"start={got}: the sum is carried by a `while` op, so start must be a Python number or a tensor "
            "of the items' dtype and shape (rt.full_like(item, value))"))
    out = _fold_rows(t, init, lambda acc, v: acc + v, 0)
    return mark_item(out, kind) if type(start) is int else out


def _one_element(t):
    dims = t.shape[1:]
    return all(d == 1 for d in dims)


def fold_array(builtin, better, array, kwargs):
    """``max(lst)`` / ``min(lst)`` of a list built in a tensor loop (see the module docstring)."""
    t = array.tensor
    name = builtin.__name__
    if kwargs:
        raise TypeError(_with_location(
            f"{name}() with {', '.join(kwargs)}= of a list built in a tensor-dependent loop: only "
            f"{name}(lst) is supported; use rt.{name}(rt.stack(lst), axis=0) or a loop"))
    if t.shape[0] >= 0:
        return None  # known length: the items as a Python list (the caller's own fold)
    if not _one_element(t):
        raise TypeError(_with_location(
            f"{name}() of a list built in a tensor-dependent loop with {t.dtype}{list(t.shape[1:])} items: "
            "eagerly it compares the items with `>`/`<`, which works only for one-element tensors; for "
            f"an elementwise {name}imum use rt.{name}(rt.stack(lst), axis=0)"))
    _not_empty(t, f"{name}()", "ValueError")
    return mark_item(_fold_rows(t, rt.tensor.array_read(t, rt.full([], 0, "int64")),
                                lambda acc, v: rt.where(better(v, acc), v, acc), 1), array.kind)


def AddN(inputs, name=None):
    """``rt.add_n(inputs)``; a list built in a tensor loop: the `sum_n` kernel's sum of its stacked items."""
    if not isinstance(inputs, TensorArray):
        return rt.add_n(inputs, name=name)
    t = inputs.tensor
    if t.shape[0] >= 0:
        return rt.add_n(array_rows(t), name=name)
    _not_empty(t, "rt.add_n", "IndexError")
    # sum_n sums np.stack(items) over axis 0 in the items' dtype: reduce_sum over the stacked array is
    # that same numpy sum (int items come back to their dtype, as sum_n keeps it)
    out = rt.sum(t, axis=0)
    return out if out.dtype == t.dtype else rt.cast(out, t.dtype)

