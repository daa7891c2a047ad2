"""Refuse functions made in a Python-unrolled loop body that outlive their iteration.

A converted `for` over a Python iterable runs its body as a function called once per item,
so a lambda or def made in the body captures that call's own variables (`lambda t: t * i`
sees each iteration's `i`). In Python the loop variables are one variable for the whole loop:
every such function sees the last value once the loop has moved on. When a function made in
the body escapes the loop (kept in a list or dict it returns or writes, or bound to a loop
variable) and captured a variable the loop changes, the converted result would silently
differ, so it is reported at the loop.
"""
import types

_DEPTH = 3


def _functions(obj, depth, seen):
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, types.FunctionType):
        yield obj
    elif depth > 0 and isinstance(obj, (list, tuple, set)):
        for v in obj:
            yield from _functions(v, depth - 1, seen)
    elif depth > 0 and isinstance(obj, dict):
        for v in obj.values():
            yield from _functions(v, depth - 1, seen)


def check_escaping_closures(body, values, writes, iterations):
    """Raise ValueError when a function made in `body` escaped with a captured loop variable."""
    code = getattr(body, "__code__", None)
    if code is None or not code.co_cellvars or iterations < 2:
        return
    changing = set(code.co_varnames[:code.co_argcount]) & set(code.co_cellvars)
    if not changing:
        return
    nested = {c for c in code.co_consts if isinstance(c, types.CodeType)}
    seen = set()
    for fn in (f for obj in (values, list((writes or {}).values())) for f in _functions(obj, _DEPTH, seen)):
        if fn.__code__ in nested:
            captured = sorted(set(fn.__code__.co_freevars) & changing)
            if captured:
                raise ValueError(
                    f"a function made inside a converted `for` loop ({fn.__qualname__.split('.')[-1]}) is kept "
                    f"after the loop and reads the loop variable(s) {', '.join(captured)}: Python gives it "
                    "their last value, the converted loop each iteration's own value. Bind the value "
                    f"explicitly (lambda ..., {captured[0]}={captured[0]}: ...) or move the function out of "
                    "the loop")
