"""The run-time check that a Python int computed in a Program did not wrap at int64.

Eager Python's int grows past 2**63; a Program's int64 wraps silently. The PythonInt operators
(``python_semantics``) append a `python_int_check` op after the ones that can overflow, which
recomputes the result exactly and raises OverflowError at the user's line when it differs.
"""
import runtime as rt
from runtime.dispatch import apply

from dy2st.operators.common import _with_location, is_symbolic


# The PythonInt operators whose int64 result can wrap at 2**63 where Python's int grows, and the
# name the `python_int_check` op computes the exact result by.
INT_CHECKS = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "rsub", "__mul__": "mul",
              "__rmul__": "mul", "__neg__": "neg", "__abs__": "abs", "__pow__": "pow", "__rpow__": "rpow"}


_SMALL = 1 << 32


def overflow_check(kind, x, y, out):
    """Append a run-time check that ``out`` (int64) is ``x kind y`` on Python's unbounded ints: an
    OverflowError at the user's line where eager Python would have gone past 2**63 (the Program's
    int64 would wrap silently). Python ints only: an int tensor wraps eagerly too."""
    if not is_symbolic(out) or out.dtype != "int64":
        return
    if kind in ("add", "sub", "rsub") and any(type(v) is int and abs(v) < _SMALL for v in (x, y)):
        # a counter (`i += 1`): a step below 2**32 reaches 2**63 only after 2**31 runs of the loop
        # (or from a value already within 2**32 of it); not checked, as the check would cost more
        # than the loop step itself
        return
    operands = [v if is_symbolic(v) else rt.full([], v, "int64") for v in (x, y)]
    if kind == "rpow":  # other ** self
        kind, operands = "pow", operands[::-1]
    message = _with_location("a Python int computed in the Program went past int64 (2**63): eager Python's "
                             "int grows, the Program's would wrap")
    apply("python_int_check", *operands, out, op=kind, message=message)
