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
            "holds (`out = []` before the loop) and store or extend it after the loop; a list held in a container "
            "grows there only when the container made it (`d = {'k': []}`), nothing takes it out to keep, and no "
            "nested function reads the container"))


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


def Extend(lst, items, shared=None):
    """`lst.extend(items)` in a loop, written back: the same Python list, or a new TensorArray (the
    items of a list or tuple, or of another list built in a tensor loop, joined as `lst + items`)."""
    _refuse_shared(lst, shared)
    if isinstance(lst, TensorArray):
        if isinstance(items, tuple):
            items = list(items)
        if not isinstance(items, (list, TensorArray)):
            raise TypeError(_with_location(
                f"lst.extend(v) on a list built in a tensor-dependent loop takes a list or tuple of tensors, "
                f"got {type(items).__name__}: write lst.extend(list(...)) with the items, or append them"))
        return lst + items
    lst.extend(items)
    return lst
