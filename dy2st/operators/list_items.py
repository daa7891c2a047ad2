"""The tensors a list built in a tensor loop (``tensor_array.TensorArray``, one stacked tensor) holds.

Eagerly such a list holds the very tensors appended to it, so an in-place write into one of them
later changes the list's item; the stacked list keeps the value it was given. The items (appended,
stacked as a loop began, read out, or walked by a later `for`) are noted here so that such a write
raises at the user's line (``runtime.inplace.refuse_writes``). A Python float known only at run
time cannot be an item either: the stack would keep its float32 rounding.
"""
import runtime as rt
from runtime.inplace import refuse_writes, write_refused

from dy2st.operators.common import _with_location, exact_value, is_symbolic
from dy2st.operators.python_bools import PythonBool, python_bool
from dy2st.operators.python_semantics import MixedInt, PythonInt, mark_int, python_int

_ITEM_WRITE = ("an in-place write changes a tensor that a list built in a tensor-dependent loop holds (it was "
               "appended to the list, or read out of it): eagerly the list's item is that same tensor and "
               "changes too, the Program's list keeps the value it was given. Append a copy "
               "(`lst.append(y.clone())`), or write into a copy of the item read (`y = lst[i].clone()`)")


def hold(*items):
    """Refuse in-place writes into Variables a list built in a tensor loop stacks or hands out
    (``runtime.inplace.refuse_writes``): eagerly the list's item is that very tensor, and such a
    write changes the item; the stacked list keeps the value it was given. Returns the items."""
    for item in items:
        if rt.is_tensor(item):  # a Variable, or an eager tensor the Program reads (a layer's buffer)
            refuse_writes(item, _ITEM_WRITE)
    return list(items)


def item_kind(v):
    """What a list item stands for: "int" (a Python int), "bool" (a Python bool), "mixed" (an int that
    is a Python int on some run-time paths and an int tensor on others) or None (a tensor)."""
    if type(v) is bool or isinstance(v, PythonBool):
        return "bool"
    if type(v) is int or isinstance(v, PythonInt):
        return "int"
    return "mixed" if isinstance(v, MixedInt) else None


def merge_kinds(a, b):
    """The item kind of a list holding items of kinds ``a`` and ``b``: Python ints with int tensors
    are "mixed" (`/` refused, as for a carried int, see ``python_semantics.MixedInt``); Python bools
    with bool tensors are plain bools, as a carried flag of both kinds is."""
    if a == b:
        return a
    return None if "bool" in (a, b) else "mixed"


def kind_of(items, kind=None, empty=False):
    """The item kind after ``items`` join a list of ``kind`` (``empty``: the list has no item yet)."""
    for item in items:
        kind = item_kind(item) if empty else merge_kinds(kind, item_kind(item))
        empty = False
    return kind


def mark_item(item, kind):
    """An item read out of a list of ``kind``, marked as the Python number it stands for."""
    if kind == "int":
        return python_int(item)
    if kind == "bool":
        return python_bool(item)
    return mark_int(item, "mixed") if kind == "mixed" else item


_STACKS = "_dy2st_list_stacks"  # Program attribute: {id: (Variable, item kind)} of stacked lists walked by a `for`


def list_stack(array):
    """The stacked tensor of ``array``, noted so that the rows a `for` over it reads are ``hold``-en
    (and marked by its item kind)."""
    t = array.tensor
    if isinstance(t, rt.static.Variable):
        t.block.program.__dict__.setdefault(_STACKS, {})[id(t)] = (t, array.kind)
    return t


def _stack_entry(t):
    block = getattr(t, "block", None)
    entry = None if block is None else block.program.__dict__.get(_STACKS, {}).get(id(t))
    return entry if entry is not None and entry[0] is t else None


def is_list_stack(t):
    """Whether ``t`` is the stacked tensor of a list built in a tensor loop (``list_stack``)."""
    return _stack_entry(t) is not None


def stack_kind(t):
    """The item kind of the list whose stacked tensor is ``t`` (``list_stack``), or None."""
    entry = _stack_entry(t)
    return None if entry is None else entry[1]


def held_by_list(*values):
    """Whether one of ``values`` is a tensor a list built in a tensor loop holds (``hold``)."""
    return any(write_refused(v) == _ITEM_WRITE for v in values if v is not None)


def refuse_python_float(item, verb):
    """A Python float known only when the Program runs (``float(t)``, a float a tensor loop carries)
    is a float64 value user code sees in the default float dtype: stacked, the list would keep only
    that rounding, where eager's list holds the Python float itself (`x64 * vals[0]`, `sum(vals)`
    compute in double eagerly)."""
    if is_symbolic(item) and exact_value(item) is not item:
        raise TypeError(_with_location(
            f"{verb} a list built in a tensor-dependent loop with a Python float known only when the Program "
            "runs (float(t), t.item(), a float the loop carries): the list is one stacked tensor of the "
            "default float dtype, where eager's list holds the double-precision Python float. Append a "
            "tensor (rt.to_tensor(v, 'float64') keeps the double value, a tensor item itself its dtype), "
            "or sum the floats in a Python float carried through the loop (`total += v`)"))
