"""`_jst.And` / `_jst.Or` / `_jst.Not`: symbolic operands -> `logical_*` ops; Python operands ->
Python's own `and`/`or`/`not`, short-circuiting at trace time."""
import runtime as rt

from dy2st import staging
from dy2st.operators.common import _as_bool_var, _bool_var, is_symbolic, truth


def _chain(kind, thunks, stops, combine):
    """Python's `a and b ...` / `a or b ...` while operands are Python values; from the first
    symbolic operand on, the rest is evaluated and combined with a graph op.

    stops(value): whether a Python value ends the chain (falsy for `and`, truthy for `or`).
    """
    value = thunks[0]()
    for i in range(1, len(thunks)):
        if is_symbolic(value):
            staging.record(kind, f"logical_{kind} op", f"operand {i} is {staging.describe(value)}")
            rest = _chain(kind, thunks[i:], stops, combine)
            return combine(_bool_var(value), _as_bool_var(rest))
        if stops(value):
            staging.record(kind, None, f"operand {i} is {staging.describe(value)}: short-circuits at trace time")
            return value
        value = thunks[i]()
    if is_symbolic(value):
        staging.record(kind, None, f"earlier operands are Python values; the result is the last operand, "
                                   f"{staging.describe(value)}")
    else:
        staging.record(kind, None, "operands are Python values: evaluated at trace time")
    return value


def And(*thunks):
    """`a and b and ...` with each operand after the first given as a thunk (short-circuit)."""
    return _chain("and", thunks, lambda v: not truth(v), rt.logical_and)


def Or(*thunks):
    """`a or b or ...`, as `And`."""
    return _chain("or", thunks, truth, rt.logical_or)


def Not(x):
    if is_symbolic(x):
        staging.record("not", "logical_not op", f"operand is {staging.describe(x)}")
        return rt.logical_not(_bool_var(x))
    staging.record("not", None, f"operand is {staging.describe(x)}: evaluated at trace time")
    return not truth(x)
