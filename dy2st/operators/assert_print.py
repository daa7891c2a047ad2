"""`_jst.Assert` / `_jst.Print`: symbolic values -> `assert` / `print` ops checked or printed at
every run; Python values -> checked or printed once, at trace time."""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static.nn: Assert, Print)

from dy2st import staging
from dy2st.operators.common import _bool_var, is_symbolic, truth
from dy2st.operators.shapes import _SymbolicShape
from dy2st.pyct.undefined import user_location


def Assert(cond, message=None):
    if is_symbolic(cond):
        msg = message if message is not None else "assertion failed"
        file, line, text = user_location()
        if file is not None:
            msg = f"{msg} ({file}, line {line}: {text.strip()})"
        staging.record("assert", "assert op", f"condition is {staging.describe(cond)}: checked at every run")
        return rt.static.nn.Assert(_bool_var(cond), msg)
    staging.record("assert", None, f"condition is {staging.describe(cond)}: checked once at trace time")
    if not truth(cond):
        raise AssertionError(message) if message is not None else AssertionError()
    return None


def RaiseIf(cond, error):
    """`if cond: raise error`: a symbolic condition becomes an `assert` op checked at every run
    (the error's type and message in its text); a Python one raises now, as Python would."""
    if isinstance(error, type):
        error = error()  # `raise ValueError` raises an instance too
    if is_symbolic(cond):
        staging.record("if", "assert op", f"`raise` under a condition that is {staging.describe(cond)}: "
                                          "checked at every run")
        message = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return Assert(rt.logical_not(_bool_var(cond)), message)
    staging.record("if", None, f"`raise` under a condition that is {staging.describe(cond)}: decided at trace time")
    if truth(cond):
        raise error
    return None


def Print(*values, **kwargs):
    """Python values print now; symbolic tensors through a `print` op at every run."""
    # A shape with unknown dims prints as the `shape` op's value, at run time.
    values = [v.as_tensor() if isinstance(v, _SymbolicShape) else v for v in values]
    if any(is_symbolic(v) for v in values):
        message = " ".join(str(v) for v in values if not is_symbolic(v)) or None
        staging.record("print", "print op", "prints Tensor values at every run")
        return rt.static.nn.Print(*[v for v in values if is_symbolic(v)], message=message)
    staging.record("print", None, "only Python values: printed once at trace time")
    print(*values, **kwargs)
    return None
