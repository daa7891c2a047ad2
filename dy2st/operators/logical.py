"""`_jst.And` / `_jst.Or` / `_jst.Not`: symbolic operands -> `logical_*` ops; Python operands ->
Python's own `and`/`or`/`not`, short-circuiting at trace time."""
import runtime as rt

from dy2st import staging
from dy2st.operators.common import _as_bool_var, _bool_var, is_symbolic, truth


def And(*thunks):
    """`a and b and ...` with each operand after the first given as a thunk (short-circuit)."""
    value = thunks[0]()
    for i in range(1, len(thunks)):
        if is_symbolic(value):
            staging.record("and", "logical_and op", f"operand {i} is {staging.describe(value)}")
            rest = And(*thunks[i:])
            return rt.logical_and(_bool_var(value), _as_bool_var(rest))
        if not truth(value):
            staging.record("and", None, f"operand {i} is {staging.describe(value)}: short-circuits at trace time")
            return value
        value = thunks[i]()
    staging.record("and", None, "operands are Python values: evaluated at trace time")
    return value


def Or(*thunks):
    """`a or b or ...`, as `And`."""
    value = thunks[0]()
    for i in range(1, len(thunks)):
        if is_symbolic(value):
            staging.record("or", "logical_or op", f"operand {i} is {staging.describe(value)}")
            rest = Or(*thunks[i:])
            return rt.logical_or(_bool_var(value), _as_bool_var(rest))
        if truth(value):
            staging.record("or", None, f"operand {i} is {staging.describe(value)}: short-circuits at trace time")
            return value
        value = thunks[i]()
    staging.record("or", None, "operands are Python values: evaluated at trace time")
    return value


def Not(x):
    if is_symbolic(x):
        staging.record("not", "logical_not op", f"operand is {staging.describe(x)}")
        return rt.logical_not(_bool_var(x))
    staging.record("not", None, f"operand is {staging.describe(x)}: evaluated at trace time")
    return not truth(x)
