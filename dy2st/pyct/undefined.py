"""Explicit placeholders for variables not bound on every path.

`y = UndefinedVar('y')` is what converted code binds when only some paths of a branch or loop
assign `y`. Any use (attribute, arithmetic, truth, call, indexing, iteration, conversion to an
array) raises `NameError` naming the variable and the user's line, found from the innermost
frame of generated code.
"""
import sys

from dy2st.pyct import origin_info


def user_location():
    """(file, line, source text) of the innermost user line running generated code, or Nones."""
    info = origin_info.innermost_origin(sys._getframe(1))
    if info is None:
        return None, None, ""
    return info.filename, info.lineno, info.source_line


def _fail(self, *args, **kwargs):
    """Any use of an UndefinedVar: a NameError naming the variable and the user's line."""
    name = object.__getattribute__(self, "_name")
    file, line, text = user_location()
    where = f'\n  File "{file}", line {line}\n    {text.strip()}' if file else ""
    raise NameError(f"local variable '{name}' is not defined on every path that reaches "
                    f"this use (it is assigned only in some branches or loop iterations){where}")


_DUNDERS = """add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow
matmul rmatmul and rand or ror xor rxor lshift rlshift rshift rrshift neg pos abs invert
lt le gt ge bool call getitem setitem delitem iter len index int float complex contains
array""".split()

# Every operator protocol fails the same way; the base class is made with them, so UndefinedVar
# has them from its creation (nothing is added to a class after it exists).
_FailingOperators = type("_FailingOperators", (), {"__slots__": (), "__doc__": "Operators that all fail.",
                                                    **{f"__{n}__": _fail for n in _DUNDERS}})


class UndefinedVar(_FailingOperators):
    """The value of a name not yet assigned on some path (a branch or loop may assign it); using it raises."""

    __slots__ = ("_name",)
    _fail = _fail

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    @property
    def var_name(self):
        """The name this placeholder stands for."""
        return object.__getattribute__(self, "_name")

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__") and attr not in ("__array__", "__index__"):
            raise AttributeError(attr)  # protocol probes (copy, numpy, inspect) stay quiet
        self._fail()

    def __repr__(self):
        return f"UndefinedVar({object.__getattribute__(self, '_name')!r})"


class _ReturnNoValue(UndefinedVar):
    """The return value before any `return` ran. A tensor `cond` may merge it with a real
    value (the return flag guarantees it is never observed), unlike a plain UndefinedVar."""
    __slots__ = ()

    def __repr__(self):
        return "RETURN_NO_VALUE"


RETURN_NO_VALUE = _ReturnNoValue("return value")
