"""Whether a tensor loop's carries settle after its first iteration, as the `while` op assumes.

A loop whose body changes a carry's kind (a Python number made a tensor, `s = s + t`) or widens its
dtype is built with each carry in the kind and dtype the body leaves it in, from the start (they
differ only if the loop never runs). That holds when eager code reaches those kinds after one
iteration and keeps them. A body that passes values between carries (`a, b = b, a * x`) can reach
them only later, or alternate: with `a, b = 0.5, 1` and a uint8 `x`, eager `b` is float32 after odd
iterations and uint8 (wrapping) after even ones, where the Program computed every `b` in float32 --
other values, no error. So after such a loop is built, its first iterations are traced again into a
scratch Program from the start values' own kinds, as eager code runs them, and a carry that is a
tensor of another dtype or rank there than in the loop is refused at the user's line.
"""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static: Program, program_guard, data)
from dy2st.operators.common import _with_location, is_symbolic
from dy2st.operators.loop_carries import _to_tensor
from dy2st.operators.loop_numbers import mark_number
from dy2st.operators.python_bools import PythonBool
from dy2st.operators.python_semantics import PythonFloat, PythonInt, float64_start, is_python_float
from dy2st.operators.side_effects import probing


def _kind(v):
    """What decides how eager code computes with ``v``: a Python number's kind, a tensor's dtype and rank."""
    if isinstance(v, (bool, PythonBool)):
        return "bool"
    if isinstance(v, (int, PythonInt)):
        return "int"
    if isinstance(v, (float, PythonFloat)):
        return "float"
    if rt.is_tensor(v):
        return (str(v.dtype), v.ndim)
    return None


def _start(v, i, name):
    if isinstance(v, (bool, int, float)):  # as the loop's first trace sees it: a marked Python number
        return mark_number(v, float64_start(v) if is_python_float(v) else _to_tensor(v, name))
    if is_symbolic(v) and type(v) is rt.static.Variable:  # an input of the scratch Program, as in the loop
        return rt.static.data(f"kind_probe_{i}", list(v.shape), v.dtype)
    return v


def check_settled(body, hidden, values, carried, names, built):
    """Refuse a loop whose carries ``carried`` (leaves: tensors and numbers) are, in one of the first
    eager iterations from ``values``, tensors of another dtype or rank than ``built`` (the loop's own
    carries). ``body(*hidden, *values) -> (hidden, values)`` is the loop body; ``names`` label them."""
    want = {i: _kind(built[i]) for i in carried if isinstance(_kind(built[i]), tuple)}
    if not want:
        return
    rounds = len(carried) + 2  # kinds only move up a finite order: they settle within a few rounds
    with rt.static.program_guard(rt.static.Program()), probing():
        cur = [_start(v, i, names[i]) if i in carried else v for i, v in enumerate(values)]
        seen = [_kind(cur[i]) for i in carried]
        for step in range(1, rounds + 1):
            try:
                hidden, outs = body(*hidden, *cur)
            except Exception:  # noqa: BLE001  (a trace the loop's own build did not need: no evidence)
                return
            cur = list(outs)
            for i, kind in want.items():
                got = _kind(cur[i])
                if isinstance(got, tuple) and got != kind:
                    raise ValueError(_with_location(
                        f"variable '{names[i]}' is a tensor of dtype {got[0]} and rank {got[1]} after iteration {step} of "
                        f"this tensor-dependent loop, as eager code runs it, but the loop carries it as "
                        f"{kind[0]} of rank {kind[1]} (what it is after other iterations): the body "
                        "passes values between carries whose dtypes differ; give them one dtype before the "
                        "loop (x.astype(...), or a tensor start value instead of a Python number)"))
            kinds = [_kind(cur[i]) for i in carried]
            if kinds == seen:
                return
            seen = kinds
