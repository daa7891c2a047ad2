"""Names a tensor-dependent loop gives their first value.

A name unbound before the loop and assigned in it: eagerly, reading it after a loop that ran zero
times is an UnboundLocalError, so the Program checks the loop ran (``check_ran``).

A loop carry that starts as None and gets a value in the loop: the first iteration is traced on its
own, before the `while` op.

    state = None                          # eagerly: `cell` makes the zero state on the first step
    for t in range(x.shape[1]):           # a tensor loop: a `while` op
        y, state = cell(x[:, t], state)

A `while` op carries one kind of value per name, and `state` is None on entry and a tensor after
one iteration.  Eagerly only the first iteration sees None, so the Program runs that iteration as
straight-line ops (the body traced once with `state = None`) and the `while` op runs the others,
starting from the values it left: the same ops in the same order as eagerly.  The Program checks
that the loop's condition held on entry: a loop that runs zero times leaves the name None eagerly,
which the Program cannot return where it returns a tensor, so it raises, saying so.
"""
import runtime as rt
from dy2st.operators.assert_print import Assert
from dy2st.operators.common import _as_bool_var, _pack, _with_location, exact_value, is_symbolic, truth
from dy2st.tools import staging


class PeelFirst(ValueError):
    """Raised by a `while` body's trace when a carry that entered as None comes out with a value."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name = name


def first_iteration(ran, name, step):
    """The values after the loop's first iteration, traced as straight-line ops by ``step()``; ``ran``:
    whether the loop runs at all (a Python bool, or a bool the Program checks; ``name``: the carry
    that entered as None). None when it does not run (then the loop is left as it is)."""
    staging.record("while", "while op", f"'{name}' is None before the loop: its first iteration runs "
                                        "before the while op")
    if not is_symbolic(ran):
        return step() if truth(ran) else None
    Assert(exact_value(ran), _with_location(
        f"'{name}' is None before a tensor-dependent loop and gets its value in the loop's first "
        "iteration, which the Program runs before the while op: the loop ran zero times here, so "
        f"eagerly '{name}' would stay None, which the Program cannot return (give it a start value "
        "before the loop)"))
    return step()


def peeled_for(symbolic_for, seq, body, values, names, extra_test, writes, name):
    """``symbolic_for`` (``loops._symbolic_for``) with item 0 traced before the while op."""
    length = seq.length()
    ran = length > 0 if type(length) is int else rt.greater_than(length, rt.full([], 0, "int64"))
    if extra_test is not None:
        go = extra_test(*values)
        ran = (ran and truth(go)) if not is_symbolic(go) and not is_symbolic(ran) else rt.logical_and(
            _as_bool_var(ran if is_symbolic(ran) else rt.full([], ran, "bool")), _as_bool_var(go))
    after = first_iteration(ran, name, lambda: _pack(body(seq.item(rt.full([], 0, "int64")), *values), len(names)))
    return values if after is None else symbolic_for(seq, body, after, names, extra_test, writes, start=1)


def check_ran(cond_fn, start, first_assigned):
    """An `assert` op: the loop's condition held for its start values (it ran at least once),
    else reading the names it alone assigns is Python's UnboundLocalError."""
    what = ", ".join(f"'{n}'" for n in first_assigned)
    message = (f"UnboundLocalError: {what} is assigned only inside a tensor-dependent loop that ran zero "
               "times, so it has no value after it (give it a value before the loop)")
    ran = cond_fn(*start)
    if not is_symbolic(ran):
        if not truth(ran):
            raise UnboundLocalError(_with_location(message))
        return
    Assert(ran, message)
