"""A Python bool carried through converted code as a bool Variable (``PythonBool``): `bool(t)`,
`not t`, a flag a tensor loop or `if` sets, `i > 2` of a carried Python int. Its arithmetic is
Python's int arithmetic on it (`found + found` is 2, `~flag` is -2, `1 << flag`), where a bool
tensor's `+` is a logical or and its `~` a logical not; `&`/`|`/`^` of Python bools stay one.
"""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static: Variable)

from dy2st.operators.python_semantics import PythonFloat, PythonInt, _as_scalar_for, python_int


def python_bool(v):
    """Mark a bool Variable as standing for a Python bool (returns it)."""
    if type(v) is rt.static.Variable and v.dtype == "bool":
        v.__class__ = PythonBool
    return v


def is_python_bool(value):
    """Whether ``value`` is a Python bool (or a Variable standing for one)."""
    return type(value) is bool or isinstance(value, PythonBool)


def as_python_int(v):
    """A Python bool (or its stand-in) as the Python int arithmetic sees: True is 1."""
    if isinstance(v, PythonBool):
        return python_int(rt.cast(v, "int64"))
    return int(v) if type(v) is bool else v


def _bool_arith(name):
    """``name`` on a Python bool: with a Python number, Python's int arithmetic (`True + True` is 2,
    where bool tensors would add as `or`); with a genuine tensor, a scalar of its dtype, as eagerly."""
    base = getattr(rt.static.Variable, name)

    def op(self, other):
        if type(other) in (bool, int, float) or isinstance(other, (PythonBool, PythonInt, PythonFloat)):
            return getattr(as_python_int(self), name)(as_python_int(other))
        return base(_as_scalar_for(self, other, False), other)
    op.__name__ = name
    return op


def _bool_logic(name):
    """``&``/``|``/``^`` of Python bools stay a Python bool."""
    base = getattr(rt.static.Variable, name)

    def op(self, other):
        out = base(self, other)
        return python_bool(out) if is_python_bool(other) else out
    op.__name__ = name
    return op


class PythonBool(rt.static.Variable):
    """A bool Variable that stands for a Python bool (`bool(t)`, `not t`, a flag a tensor loop or
    `if` sets): arithmetic is Python's int arithmetic on it (`found + found` is 2, `~flag` is -2),
    where a bool tensor's `+` is a logical or and its `~` a logical not."""

    python_number = False
    __add__, __radd__ = _bool_arith("__add__"), _bool_arith("__radd__")
    __sub__, __rsub__ = _bool_arith("__sub__"), _bool_arith("__rsub__")
    __mul__, __rmul__ = _bool_arith("__mul__"), _bool_arith("__rmul__")
    __truediv__, __rtruediv__ = _bool_arith("__truediv__"), _bool_arith("__rtruediv__")
    __floordiv__, __rfloordiv__ = _bool_arith("__floordiv__"), _bool_arith("__rfloordiv__")
    __mod__, __rmod__ = _bool_arith("__mod__"), _bool_arith("__rmod__")
    __pow__, __rpow__ = _bool_arith("__pow__"), _bool_arith("__rpow__")

    def __lshift__(self, other):  # the shifts of the int it is
        return as_python_int(self) << as_python_int(other)

    def __rlshift__(self, other):
        return as_python_int(other) << as_python_int(self)

    def __rshift__(self, other):
        return as_python_int(self) >> as_python_int(other)

    def __rrshift__(self, other):
        return as_python_int(other) >> as_python_int(self)

    __and__, __rand__ = _bool_logic("__and__"), _bool_logic("__rand__")
    __or__, __ror__ = _bool_logic("__or__"), _bool_logic("__ror__")
    __xor__, __rxor__ = _bool_logic("__xor__"), _bool_logic("__rxor__")
    __hash__ = rt.static.Variable.__hash__

    def __neg__(self):
        return -as_python_int(self)

    def __invert__(self):
        return ~as_python_int(self)

    __pos__ = __abs__ = as_python_int
