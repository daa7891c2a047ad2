"""`_jst.Max` / `_jst.Min` / `_jst.Any` / `_jst.All`: Python's `max`, `min`, `any`, `all` over
values some of which are traced.

Eagerly these decide with the truth of one-element tensors (`max(x.shape[0], 3)`, `any([a > 0,
b > 0])`); a traced value has no truth until the Program runs, so the choice becomes ops:
`max`/`min` of ints (an unknown dim and Python ints, with `where`) or of one-element tensors of one
dtype and shape (with `cond`) pick the first of equal items, as Python; `any`/`all` combine truths with
`logical_or`/`logical_and` (a bool tensor, where Python gives a bool). Anything else is left to
a TypeError at the user's line (eagerly the result is one of the items, a Python number or a tensor
as the comparison goes, which no Program value can be).

`_jst.CastFold`: ``int(min(t, n))`` / ``float(max(t, n))``. The cast makes the item's kind moot, so a
tensor against a Python number picks as eagerly: the items compare as they do eagerly (the tensor's
comparison op), then the picked item's cast is the result (`where` between the two casts).
"""
import builtins
import math

import runtime as rt
from dy2st.operators.casts import AsDtype, _live
from dy2st.operators.common import _with_location, is_symbolic
from dy2st.operators.comparisons import Truth
from dy2st.operators.ifelse import IfElse
from dy2st.operators.list_items import mark_item
from dy2st.operators.list_reductions import array_rows, fold_array
from dy2st.operators.python_semantics import PythonFloat, PythonInt, exact_of, float_view, python_int
from dy2st.operators.tensor_array import TensorArray


def _items(args):
    return list(args[0]) if len(args) == 1 else list(args)


def _one_element(v):
    return rt.is_tensor(v) and all(d >= 0 for d in v.shape) and math.prod(v.shape) == 1


def _pick(items, better):
    """The first item no later item is `better` than, with `where`; None when the items are not
    ints (Python or marked) nor one-element tensors of one dtype and shape."""
    if all(type(v) is int or isinstance(v, PythonInt) for v in items):
        out = items[0]
        for v in items[1:]:
            a = out if is_symbolic(out) else rt.full([], out, "int64")
            b = v if is_symbolic(v) else rt.full([], v, "int64")
            out = python_int(rt.where(better(b, a), b, a))
        return out
    if all(type(v) is float or isinstance(v, PythonFloat) for v in items):  # e.g. min(opt.get_lr(), 0.1)
        items = [exact_of(v) for v in items]  # a carried float compares (and is kept) in float64
        wide = any(is_symbolic(v) and v.dtype == "float64" for v in items)
        dtype = "float64" if wide else next(v.dtype for v in items if is_symbolic(v))
        items = [rt.cast(v, dtype) if is_symbolic(v) and v.dtype != dtype else v for v in items]
        out = items[0]
        for v in items[1:]:
            a = out if is_symbolic(out) else rt.full([], out, dtype)
            b = v if is_symbolic(v) else rt.full([], v, dtype)
            out = rt.where(better(b, a), b, a)
        return float_view(out) if is_symbolic(out) else out
    first = items[0]
    if all(_one_element(v) and v.dtype == first.dtype and list(v.shape) == list(first.shape) for v in items):
        out = first
        for v in items[1:]:  # a `cond` op, so the item not picked gets no gradient, as eagerly
            out = IfElse(better(v, out), lambda v=v: v, lambda out=out: out)
        return out
    return None


def _fold(builtin, better, args, kwargs):
    if len(args) == 1 and isinstance(args[0], TensorArray):  # a list built in a tensor loop
        out = fold_array(builtin, better, args[0], kwargs)
        if out is not None:
            return out
        args = ([mark_item(v, args[0].kind) for v in array_rows(args[0].tensor)],)
    items = _items(args)
    if kwargs or not items or not any(is_symbolic(v) for v in items):
        return builtin(items, **kwargs) if len(args) == 1 else builtin(*args, **kwargs)
    out = _pick(items, better)
    if out is None:
        kinds = ", ".join(sorted({f"a {v.dtype} tensor of shape {list(v.shape)}" if rt.is_tensor(v)
                                  else type(v).__name__ for v in items}))
        name = builtin.__name__
        raise TypeError(_with_location(f"{name}() of traced values ({kinds}): " + (_mixed_hint(name, items) or (
            "eagerly it returns the item itself, chosen by "
            "comparing them, which a Program can do only for ints, or for one-element tensors of one dtype and "
            f"shape; make every item such a tensor (rt.full([], 0.5, x.dtype)), or use rt.{name}imum / "
            f"rt.{name}() on a stacked tensor"))))
    return out


def _mixed_hint(name, items):
    """For a tensor against a Python number (`max(n, 1)`): eagerly the result is a Tensor or a Python
    number as the values go, and the two compute differently afterwards (`r / 3` is float32 or
    float64), so the Program cannot pick one kind for every call: the user says which."""
    if not any(type(v) in (int, float) for v in items) or not all(type(v) in (int, float) or _one_element(v)
                                                                   for v in items):
        return ""
    num = next(v for v in items if type(v) in (int, float))
    floats = type(num) is float or any(rt.is_tensor(v) and "float" in str(v.dtype) for v in items)
    cast = "float" if floats else "int"  # int(t) of a float tensor would truncate
    return (f"eagerly it returns the tensor or the Python number, as they compare, and the two compute "
            f"differently afterwards, so no Program value is both; say which: {name}({cast}(t), {num!r}) "
            f"for a Python number, or {name}(t, rt.full_like(t, {num!r})) for a Tensor")


def Max(*args, **kwargs):
    """``max(...)``: see the module docstring."""
    return _fold(builtins.max, lambda b, a: b > a, args, kwargs)


def Min(*args, **kwargs):
    """``min(...)``: see the module docstring."""
    return _fold(builtins.min, lambda b, a: b < a, args, kwargs)


def CastFold(builtin, kind, *items):
    """``int(min(a, b))`` / ``float(max(a, b))``: see the module docstring."""
    better = (lambda b, a: b > a) if builtin is builtins.max else (lambda b, a: b < a)
    items = [_live(v) for v in items]
    if not any(is_symbolic(v) for v in items):
        return AsDtype(builtin(*items), kind)
    out = _pick(items, better)
    if out is not None or len(items) != 2 or not all(type(v) in (int, float) or _one_element(v) for v in items):
        return AsDtype(_fold(builtin, better, items, {}), kind)
    a, b = items
    took_b = rt.reshape(Truth(better(b, a)), [])  # Python's fold: a later item wins only if strictly better
    ca, cb = AsDtype(a, kind), AsDtype(b, kind)
    dtype = "int64" if kind == "int" else "float64"  # a Python int / float holds either item's cast
    ca, cb = (rt.cast(v, dtype) if is_symbolic(v) else rt.full([], v, dtype) for v in (ca, cb))
    out = rt.where(took_b, cb, ca)
    return python_int(out) if kind == "int" else float_view(out)


def _truths(iterable, builtin, combine):
    items = list(iterable)
    if not any(is_symbolic(v) for v in items):
        return builtin(items)
    if any(is_symbolic(v) and not _one_element(v) for v in items):
        return builtin(items)  # a many-element tensor's truth: the builtin's own error
    python = [bool(v) for v in items if not is_symbolic(v)]
    if python and builtin(python) is (builtin is builtins.any):
        return builtin(python)  # a Python item decides it, whatever the tensors hold
    out = None
    for v in items:
        if is_symbolic(v):
            t = rt.reshape(Truth(v), [])
            out = t if out is None else combine(out, t)
    return out


def Any(iterable):
    """``any(iterable)``: see the module docstring."""
    return _truths(iterable, builtins.any, rt.logical_or)


def All(iterable):
    """``all(iterable)``: see the module docstring."""
    return _truths(iterable, builtins.all, rt.logical_and)
