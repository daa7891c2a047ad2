"""`_jst.Append` / `_jst.Insert` / `_jst.Pop`: a list's growth in a loop, written back to its name.

A Python list stays one (the write is made in place and the same list returned); a list a
tensor-dependent loop carries is a ``TensorArray`` and the write returns a new one.  A list the
list pass found may be held elsewhere too (``shared``) is refused in a tensor loop.
"""
from dy2st.operators.common import _with_location
from dy2st.operators.tensor_array import ProbeList, TensorArray, _check_insert_index


def _refuse_shared(lst, shared):
    """A list the converted function may also hold elsewhere (``shared``: how, from the list pass)
    grown in a tensor-dependent loop: the loop makes the name a tensor array, and whatever else
    holds the Python list would keep its old items where eagerly it sees every one."""
    if shared is not None and isinstance(lst, (TensorArray, ProbeList)):
        raise TypeError(_with_location(
            f"a list grown in a tensor-dependent loop is also held elsewhere ({shared}): in the loop the "
            "list becomes one stacked tensor under this name, and what else holds it would keep the "
            "items it had before the loop (eagerly it sees every one). Grow a new list only this name "
            "holds (`out = []` before the loop) and store or extend it after the loop"))


def Append(lst, item, shared=None):
    """`lst.append(item)`, written back: the same Python list, or a new TensorArray."""
    _refuse_shared(lst, shared)
    if isinstance(lst, TensorArray):
        return lst.appended(item)
    lst.append(item)
    return lst


def Insert(lst, index, item, shared=None):
    """`lst.insert(index, item)` in a loop, written back: the same Python list, or a new TensorArray."""
    _refuse_shared(lst, shared)
    if isinstance(lst, TensorArray):
        return lst.inserted(index, item)
    lst.insert(_check_insert_index(index), item)
    return lst


def Pop(lst, *index, shared=None):
    """`item = lst.pop(*index)`, written back as `lst, item = _jst.Pop(lst, *index)`."""
    _refuse_shared(lst, shared)
    if isinstance(lst, TensorArray):
        return lst.popped(*index)
    item = lst.pop(*index)
    return lst, item
