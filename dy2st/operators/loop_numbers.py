"""What a tensor loop's carries stand for, and how the loop is built again when the body changes it.

A carry that starts as a Python number is marked as one in the body (``mark_number``: a Python int
divides truly, a float is a double, a bool counts); one the body makes a tensor (or an int tensor of
another dtype) is started as that tensor (``number_changes``, ``_Demote``, ``_Mixed``), a dtype the
body widens is started wide (``_Widen``), a rank it changes is started filled to that rank
(``_number_reshapes``), and a list built in the loop keeps the kind of its items (``kinded``,
``_ArrayKinds``). Carried leaves are keyed by (carry index, *indices and keys into it), so a number
inside a carried tuple or dict is one too (``leaf_at``).
"""
import numpy as np

import runtime as rt
from dy2st.operators.list_items import merge_kinds
from dy2st.operators.python_bools import PythonBool, is_python_bool, python_bool
from dy2st.operators.python_semantics import (MixedInt, PythonFloat, PythonInt, _is_python_int, exact_of, float_view,
                                              int_kind, is_python_float, python_float, python_int)
from dy2st.operators.tensor_array import TensorArray


def _number_reshapes(numbers, loop_vars, new):
    """{flat position: (dtype, shape)} for carries that start as a Python number and that the
    body turns into a tensor of another rank (`s = 0` then `s = s + row`): eager code holds that
    tensor after the first iteration, so the loop starts with the number filled to its shape
    and dtype (the results differ only in kind, not value, if the loop never runs)."""
    out = {}
    for k, number in numbers.items():
        old, v = loop_vars[k], new[k]
        if not (rt.is_tensor(v) and old.ndim != v.ndim and all(d >= 0 for d in v.shape)):
            continue
        kind = np.dtype(v.dtype.np).kind
        if kind == "f" or (kind in "iu" and not isinstance(number, float)) or isinstance(number, bool):
            out[k] = (v.dtype, list(v.shape))
    return out


class _Mixed(Exception):
    """The body turns the Python ints at ``positions`` into int tensors (or back): build again
    with them marked as path-dependent (see python_semantics.MixedInt). ``positions`` maps each
    to the dtype of the int tensor the body makes of a Python int (None: keep the start's)."""

    def __init__(self, positions):
        super().__init__(positions)
        self.positions = positions


class _ArrayKinds(Exception):
    """Lists built in the loop get items of another kind than they start with (a list of Python ints
    gets an int tensor): build again with the merged item kinds (``kinds``: {flat position: kind})."""

    def __init__(self, kinds):
        super().__init__(kinds)
        self.kinds = kinds


def kinded(flat, loop_vars, kinds):
    """``flat`` (a loop's block arguments or results) with the carried lists' stacked tensors as
    TensorArrays of their item kind: their start's, or the merged one a retrace found (``kinds``)."""
    return [TensorArray(v, kinds.get(k, start.kind)) if isinstance(start, TensorArray) and rt.is_tensor(v) else v
            for k, (v, start) in enumerate(zip(flat, loop_vars))]


def check_kinds(new, loop_vars, kinds):
    """Raise _ArrayKinds when the body's lists (``new``, flat) hold items of a kind their start lacks."""
    changed = {}
    for k, (v, start) in enumerate(zip(new, loop_vars)):
        if isinstance(v, TensorArray) and isinstance(start, TensorArray):
            was = kinds.get(k, start.kind)
            if merge_kinds(was, v.kind) != was:
                changed[k] = merge_kinds(was, v.kind)
    if changed:
        raise _ArrayKinds(changed)


class _Demote(Exception):
    """The body turns the Python-number carries at ``positions`` ({position: dtype}) into genuine
    float tensors (`s = s + t`): build again with them started as tensors of that dtype."""

    def __init__(self, positions):
        super().__init__(positions)
        self.positions = positions


def mark_number(value, v):
    """The rebuilt carry ``v`` of a carry that started as the Python number ``value``, marked as
    the kind of Python number it holds (an int keeps true division, a float the scalar dtype rules)."""
    if is_python_bool(value):
        return python_bool(v)  # `found + found` counts, as Python's bools do
    if not isinstance(value, (int, float, PythonInt, PythonFloat)):
        return v
    v = python_int(v)
    return float_view(v) if rt.is_tensor(v) and v.dtype == "float64" else python_float(v)


def _genuine(v, kinds, numbers=(PythonFloat, PythonInt, MixedInt, PythonBool)):
    """Whether ``v`` is a tensor of a dtype kind in ``kinds`` that stands for no Python number."""
    return rt.is_tensor(v) and not isinstance(v, numbers) and np.dtype(v.dtype.np).kind in kinds


def number_changes(starts, outs, mixed, demoted):
    """(turned, demote) for the carried leaves (``starts``: {key: start value}, key = (carry index,
    *indices and keys into it), a number inside a tuple too):

    - turned, {key: dtype or None}: leaves that start as a Python int and that the body makes an int
      tensor, or back (or a Python bool a plain bool tensor): which one they hold depends on the trip
      count. The dtype is that of the int tensor the body makes of a Python int (`s = 0` then
      `s = s + t` with an int32 or uint8 `t`: eager code holds `t`'s dtype after the first
      iteration, and wraps as it does), else None (a MixedInt out: another carry's, `a, b = b, a + t`).
    - demote, {key: dtype}: leaves that start as a Python float or int and that the body makes a
      genuine float tensor (`s = 0.0` then `s = s + t`): eager code holds `t`'s dtype (float16,
      float64) after the first iteration, not the default float dtype or a Python float's.
    """
    turned, demote = {}, {}
    for key, start in starts.items():
        out = leaf_at(outs[key[0]], key[1:])
        if out is _MISSING:
            continue
        if key not in mixed and (int_kind(start, out) == "mixed" or (
                type(start) is bool and rt.is_tensor(out) and not is_python_bool(out))):
            turned[key] = out.dtype if _is_python_int(start) and _genuine(out, "iu", (PythonInt, PythonBool)) else None
        if key not in demoted and _genuine(out, "f") and (is_python_float(start) or _is_python_int(start)):
            demote[key] = out.dtype
    return turned, demote


def number_start(value, dtype):
    """The start of a carry that is the Python number ``value`` before the loop and a tensor of
    ``dtype`` after its first iteration (the kind differs, not the value, if it never runs)."""
    if isinstance(value, (bool, int, float)):
        return rt.full([], value, dtype)
    return rt.cast(exact_of(value), dtype)


class _Widen(Exception):
    """The body widens some carries' dtype ({flat position: dtype}): start them wider."""

    def __init__(self, casts):
        super().__init__(casts)
        self.casts = casts


def _widens(old, new):
    """Whether `new` is `old` promoted to a wider dtype of the same rank (int32 -> int64,
    float32 -> float64, int -> float, bool -> int), as one eager iteration would make it."""
    if old.dtype == new.dtype or old.ndim != new.ndim:
        return False
    a, b = np.dtype(old.dtype.np), np.dtype(new.dtype.np)
    rank = {"b": 0, "u": 1, "i": 1, "f": 2}
    if a.kind not in rank or b.kind not in rank:
        return False
    return rank[b.kind] > rank[a.kind] or (a.kind == b.kind and b.itemsize > a.itemsize)


_MISSING = object()


def leaf_at(value, path):
    """The item of ``value`` at ``path`` (indices and keys, as ``_carry_spec``'s leaves), or _MISSING."""
    for step in path:
        if isinstance(value, dict):
            value = value.get(step, _MISSING)
        elif isinstance(value, (list, tuple)) and isinstance(step, int) and -len(value) <= step < len(value):
            value = value[step]
        else:
            return _MISSING
    return value
