"""`_jst.Compare`: a chained comparison (`a < b < c`) with Python's meaning, whose links may be
tensors: the links are combined as `and` is (`_jst.And`), so Python links short-circuit at
trace time and tensor links become `logical_and` ops. `_jst.Truth`: an operand of an `and`/`or`
used as a condition, as a bool tensor when it is a traced non-bool tensor."""
import operator

import runtime as rt

from dy2st.operators.common import exact_value, is_symbolic
from dy2st.operators.logical import And

_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "==": operator.eq, "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
        "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def Compare(first, *links):
    """`first op1 b op2 c ...` with each link given as (op symbol, thunk of its right operand);
    every operand is evaluated once, in order, and only while the chain is still undecided."""
    left = [first]

    def link(symbol, thunk):
        def run():
            right = thunk()
            out = _OPS[symbol](left[0], right)
            left[0] = right
            return out
        return run
    return And(*[link(symbol, thunk) for symbol, thunk in links])


def Truth(value):
    """A condition operand: a traced non-bool tensor becomes its truth (nonzero) as a bool
    tensor, a Python value its truth (`and`/`or` then know a condition asks, see logical._chain);
    tensors otherwise come back as they are."""
    if is_symbolic(value) and value.dtype != "bool":
        value = exact_value(value)  # a carried Python float: the truth of its float64 value
        return rt.not_equal(value, rt.zeros_like(value))
    return value if rt.is_tensor(value) else bool(value)
