"""`_jst.MatchClassSubject`: the subject of a `case` whose pattern names a class.

A class pattern (`case int():`, `case rt.Tensor():`) asks `isinstance`, which a static Variable
answers as neither a Tensor nor the Python int it may stand for: the case would silently match
otherwise than eagerly. The match pass writes a bare `case C():` as `_jst.IsInstance(subject, C)`;
any other class pattern gets its subject through this check.
"""
from dy2st.operators.common import _with_location, is_symbolic


def _symbolic_inside(value, depth=0):
    if is_symbolic(value):
        return True
    if depth < 3 and isinstance(value, (list, tuple)):
        return any(_symbolic_inside(v, depth + 1) for v in value)
    if depth < 3 and isinstance(value, dict):
        return any(_symbolic_inside(v, depth + 1) for v in value.values())
    return False


def MatchClassSubject(subject):
    """``subject``, refused at the user's line when it holds a tensor traced into the Program."""
    if _symbolic_inside(subject):
        raise TypeError(_with_location(
            "a `case` with a class pattern (`case C(...)`) is matched against a tensor traced into the "
            "Program, which `isinstance` would not see as the Tensor (or Python int) it is eagerly: "
            "test it with `isinstance(...)` in an `if`, or use a bare `case C():`"))
    return subject
