"""Python numbers a tensor `if` merges: a value that is the same Python number on both paths stays
that number; a Python number on both paths (a float on one: held in float64) is marked as the kind
of number it is (``python_semantics``), in a tuple or dict too; a number beside a 0-d tensor of
another dtype becomes a constant of that dtype where it holds the number exactly.
"""
import numpy as np

import runtime as rt
from runtime.framework import static_mode_guard

from dy2st.operators.common import is_symbolic
from dy2st.operators.python_bools import is_python_bool, python_bool
from dy2st.operators.python_semantics import (MixedInt, PythonFloat, PythonInt, exact_of, float64_start, float_view,
                                              int_kind, mark_int, python_numbers)


def same_python(a, b, merged):
    """``merged`` with the items both branches left as the same Python number put back: `return y,
    index` with ``index`` 1 on either path gives the int 1, as eager code (and Paddle) does."""
    if type(a) in (bool, int, float) and type(a) is type(b) and a == b:
        return a
    if is_symbolic(merged):  # an item of a tuple or dict: a Python number on both paths stays one
        if python_numbers(a, b):
            return float_view(merged)  # (merged in float64: float64_leaves)
        if int_kind(a, b):
            return mark_int(merged, int_kind(a, b))
        if is_python_bool(a) and is_python_bool(b):
            return python_bool(merged)
    if a is b and rt.is_tensor(a) and not is_symbolic(a):
        # the same eager tensor on both paths (a buffer, written by item in a branch): still that
        # tensor, so later writes reach it too (the Program writes its value back after each run)
        return a
    if (isinstance(a, (list, tuple)) and type(a) is type(b) and isinstance(merged, (list, tuple))
            and len(a) == len(b) == len(merged) and not hasattr(a, "_fields")):
        return type(merged)(same_python(x, y, m) for x, y, m in zip(a, b, merged))
    if isinstance(a, dict) and isinstance(b, dict) and isinstance(merged, dict) and a.keys() == b.keys() == merged.keys():
        return {k: same_python(a[k], b[k], merged[k]) for k in merged}
    return merged


def float64_leaves(v, other):
    """``v`` (one branch's value) with the items of its tuples and dicts that are Python numbers on both
    paths, a float on one, in float64: the precision eager code holds the float in (``same_python``
    marks the merged item)."""
    if (isinstance(v, (list, tuple)) and not hasattr(v, "_fields") and type(v) is type(other)
            and len(v) == len(other)):
        return type(v)(float64_leaves(x, y) for x, y in zip(v, other))
    if isinstance(v, dict) and isinstance(other, dict) and v.keys() == other.keys():
        return {k: float64_leaves(v[k], other[k]) for k in v}
    return float64_start(v) if python_numbers(v, other) else v


def _scalar_like(v, other):
    """``v`` (a Python int or float) as a constant of ``other``'s dtype, when ``other`` is a 0-d
    tensor of a dtype ``v`` would not get by itself and the cast keeps ``v`` exactly; else None.
    A Python number known only when the Program runs (a loop's `best = 0` carry, one path of `if x[i] >
    best: best = x[i]`) is cast to that dtype: eagerly the name holds that tensor after the path that
    sets it, and the loop then carries it as one (loops.py)."""
    if (isinstance(v, (PythonInt, PythonFloat)) and rt.is_tensor(other) and list(other.shape) == []
            and not isinstance(other, (PythonInt, PythonFloat, MixedInt)) and str(other.dtype).startswith(("float", "int"))
            and other.dtype != v.dtype):
        return rt.cast(exact_of(v), other.dtype)
    if type(v) not in (int, float) or not rt.is_tensor(other) or list(other.shape) != []:
        return None
    dtype = str(other.dtype)
    if dtype == ("int64" if type(v) is int else "float32") or not (dtype.startswith(("float", "int"))):
        return None  # the default already agrees (or a bool/complex one: no number stands for it)
    cast = np.asarray(v).astype(dtype)
    return rt.full([], v, dtype) if cast.item() == v and np.isfinite(cast) else None


def numbers_as_scalars(program, state, first, second):
    """`return index` (a Python int) on one path and `return y` (a float32 0-d tensor) on the other:
    the number becomes a 0-d tensor of y's dtype in its branch, as Paddle's cond makes it, when that
    holds it exactly (a float32 1.0 for 1); otherwise the dtypes disagree and the `if` is refused."""
    for i, (a, b) in enumerate(zip(state["first"], state["second"])):
        for key, branch, v, other in (("first", first, a, b), ("second", second, b, a)):
            with program.block_guard(branch.block), static_mode_guard(True):
                const = _scalar_like(v, other)
            if const is not None:
                state[key] = tuple(state[key][:i]) + (const,) + tuple(state[key][i + 1:])
