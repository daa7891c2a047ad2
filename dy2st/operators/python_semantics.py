"""Python builtins and statements whose meaning converted code must keep for traced values.

- `x.stop_gradient = True` (rewritten by the attributes pass): the value is cut off from the
  gradient with a `stop_gradient` op, since a Program value has no flag backward could read
  (``flags.py``).
- A Python int carried through a tensor loop (or a `range(tensor)` loop index) becomes an int64
  Variable; marked as a `PythonInt`, `/` on it still divides truly, as on the int it was; a Python
  bool (`PythonBool`) adds as an int, as Python's bools do.

`isinstance`/`type`, `except` while building and the refused random draws and clocks are in
``python_checks.py``.
"""
import runtime as rt
import runtime.static  # noqa: F401  (rt.static: Variable)
from runtime.dtypes import DEFAULT_FLOAT, scalar_dtype
from runtime.trace_state import PYTHON_NUMBER_VIEWS

from dy2st.operators.common import EXACT_ATTR, _with_location, exact_value, is_symbolic
from dy2st.operators.python_int_overflow import INT_CHECKS, overflow_check


def _is_python_int(x):
    return type(x) is int or isinstance(x, PythonInt)


def _is_int_tensor(x):
    """A genuine int tensor (not a Python int standing in a Variable)."""
    return (rt.is_tensor(x) and not isinstance(x, (PythonInt, MixedInt))
            and str(x.dtype) in ("int8", "int16", "int32", "int64", "uint8"))


def int_kind(a, b):
    """How to mark a value that is ``a`` on one path and ``b`` on another: "python" (a Python int
    on both), "mixed" (a Python int on one, an int tensor on the other) or None."""
    if isinstance(a, MixedInt) or isinstance(b, MixedInt):
        return "mixed"
    if _is_python_int(a) and _is_python_int(b):
        return "python"
    if (_is_python_int(a) and _is_int_tensor(b)) or (_is_int_tensor(a) and _is_python_int(b)):
        return "mixed"
    return None


def mark_int(v, kind):
    """Mark the int Variable ``v`` as ``int_kind`` says (returns it)."""
    if kind == "python":
        return python_int(v)
    if kind == "mixed" and type(v) in (rt.static.Variable, PythonInt) and v.dtype in ("int32", "int64"):
        v.__class__ = MixedInt
    return v


def python_int(v):
    """Mark an int64 Variable as standing for a Python int (returns it)."""
    if type(v) is rt.static.Variable and v.dtype in ("int32", "int64"):
        v.__class__ = PythonInt
    return v


def _as_scalar_for(v, other, sample=0):
    """``v`` (a PythonInt, or a PythonFloat with ``sample`` 0.0) cast to the dtype a Python number
    takes eagerly when it meets the genuine tensor ``other`` (an int32 tensor keeps int32, a bool one
    gives int64, a float16 one float16); ``v``'s own dtype would otherwise promote ``other`` to a
    dtype the eager run never has."""
    if rt.is_tensor(other) and not isinstance(other, (PythonInt, MixedInt, PythonFloat)):
        dtype = scalar_dtype(sample, other.dtype)
        if dtype != v.dtype:
            return rt.cast(v, dtype)
    return v


def _keeping(name, sample, mark_for):
    """The Variable operator ``name`` for a marked number: ``self`` takes the dtype a Python number
    would (``_as_scalar_for``), and the result is marked by ``mark_for(other)`` (None: unmarked).
    A Python float with a float64 value behind it (``float_view``) computes on that value."""
    base = getattr(rt.static.Variable, name)

    check = INT_CHECKS.get(name)

    def op(self, other):
        a, b = exact_of(self), exact_of(other)
        if type(other) is float and isinstance(self, PythonInt):  # Python's int op float: a float64 result
            return float_view(base(rt.cast(a, "float64"), other))
        out = base(_as_scalar_for(a, other, sample), b)
        mark = mark_for(other)
        if mark is python_float and (a is not self or b is not other) and out.dtype == "float64":
            return float_view(out)
        if mark is python_int and check is not None:
            overflow_check(check, a, b, out)
        return out if mark is None else mark(out)
    op.__name__ = name
    return op


def _comparing(name, sample):
    """The comparison ``name`` of a marked number: with a Python number (marked or not) a Python bool,
    as eagerly (`flag = i > 2` then counts with `+`); with a tensor a bool tensor, the number taken as
    a scalar of the tensor's dtype. An int meets a float as Python compares them: in float64."""
    base = getattr(rt.static.Variable, name)

    def op(self, other):
        if not (type(other) in (bool, int, float) or isinstance(other, (PythonInt, PythonFloat, _bools.PythonBool))):
            return base(_as_scalar_for(exact_of(self), other, sample), exact_of(other))
        a, b = exact_of(self), exact_of(_bools.as_python_int(other))
        if a.dtype == "float64" or type(b) is float or (is_symbolic(b) and b.dtype == "float64"):
            a = rt.cast(a, "float64") if a.dtype != "float64" else a
            b = rt.cast(b, "float64") if is_symbolic(b) and b.dtype != "float64" else b
        return _bools.python_bool(base(a, b))
    op.__name__ = name
    return op


def _comparisons(sample):
    return tuple(_comparing(n, sample) for n in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"))


def _marked_unary(name, mark):
    """The unary Variable operator ``name`` whose result keeps ``mark`` (python_int or python_float)."""
    base = getattr(rt.static.Variable, name)

    def op(self):
        exact = exact_of(self)
        if exact is not self:
            return float_view(base(exact))
        out = base(self)
        if mark is python_int:
            overflow_check(INT_CHECKS[name], self, self, out)
        return mark(out)
    op.__name__ = name
    return op


def exact_of(v):
    """The float64 value a Python-float view (``float_view``) stands for; ``v`` itself otherwise."""
    return exact_value(v) if isinstance(v, PythonFloat) else v


def float_view(exact):
    """A float64 Python float (a loop or `if` carry, ``float64_start``) as user code sees it: in the
    default float dtype, what an API given a Python float makes of it (`rt.add(x, acc)`,
    `rt.to_tensor(acc)`), marked; its operators compute on the float64 value, as eager code does."""
    if DEFAULT_FLOAT[0] == "float64" or exact.dtype != "float64":
        return python_float(exact)
    view = python_float(rt.cast(exact, DEFAULT_FLOAT[0]))
    view.block.program.__dict__.setdefault(EXACT_ATTR, {})[view.name] = exact
    return view


def _int_result(other):
    """A Python int with ``other``: a Python float with a float, a Python int with an int, else a tensor."""
    if isinstance(other, (float, PythonFloat)):
        return python_float
    return python_int if _is_python_int(other) or _bools.is_python_bool(other) else None


def _keeps_int(name):
    return _keeping(name, 0, _int_result)


class PythonInt(rt.static.Variable):
    """An int64 Variable that stands for a Python int: `/` with another Python int divides truly
    (in the default float dtype, the one Python floats get), and int arithmetic with Python ints keeps the mark.
    With a genuine int tensor it behaves as that tensor would eagerly."""

    python_number = 0

    def __truediv__(self, other):
        other = _bools.as_python_int(other)  # a bool divides as the int it is
        if _is_python_int(other):  # Python's int / int: the float64 quotient (seen in the default float dtype)
            return float_view(rt.divide(rt.cast(self, "float64"), rt.cast(other, "float64")
                                        if is_symbolic(other) else rt.full([], float(other), "float64")))
        if type(other) is float:  # int / float: a float64 Python float
            return float_view(rt.divide(rt.cast(self, "float64"), rt.full([], other, "float64")))
        return rt.static.Variable.__truediv__(_as_scalar_for(self, other), other)

    def __rtruediv__(self, other):
        if type(other) in (bool, int, float):
            return float_view(rt.divide(rt.full([], float(other), "float64"), rt.cast(self, "float64")))
        return rt.static.Variable.__rtruediv__(_as_scalar_for(self, other), other)

    __add__, __radd__ = _keeps_int("__add__"), _keeps_int("__radd__")
    __sub__, __rsub__ = _keeps_int("__sub__"), _keeps_int("__rsub__")
    __mul__, __rmul__ = _keeps_int("__mul__"), _keeps_int("__rmul__")
    __floordiv__, __rfloordiv__ = _keeps_int("__floordiv__"), _keeps_int("__rfloordiv__")
    __mod__, __rmod__ = _keeps_int("__mod__"), _keeps_int("__rmod__")
    __and__, __rand__ = _keeps_int("__and__"), _keeps_int("__rand__")
    __or__, __ror__ = _keeps_int("__or__"), _keeps_int("__ror__")
    __xor__, __rxor__ = _keeps_int("__xor__"), _keeps_int("__rxor__")
    __rpow__ = _keeps_int("__rpow__")

    def __lshift__(self, other):  # Python's shifts of an int: exact multiples and floor quotients of 2**k
        return self * (2 ** _shift_count(other))

    def __rshift__(self, other):
        return self // (2 ** _shift_count(other))

    def __rlshift__(self, other):
        if type(other) not in (bool, int):
            return NotImplemented
        return int(other) * (2 ** _shift_count(self))

    def __rrshift__(self, other):
        if type(other) not in (bool, int):
            return NotImplemented
        return int(other) // (2 ** _shift_count(self))

    def __divmod__(self, other):  # divmod(n, 3) of an unknown dim: Python's floor pair
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __round__(self, ndigits=None):
        if ndigits is None or ndigits >= 0:  # an int rounds to itself
            return self
        raise TypeError(_with_location(f"round(n, {ndigits}) of a Python int known only when the Program "
                                       "runs: round it with // and * instead"))

    __neg__, __abs__ = _marked_unary("__neg__", python_int), _marked_unary("__abs__", python_int)
    __lt__, __le__, __gt__, __ge__, __eq__, __ne__ = _comparisons(0)
    __hash__ = rt.static.Variable.__hash__

    def __pos__(self):
        return self

    def __pow__(self, other):
        # int ** negative int is a float in Python; an int tensor would truncate to 0.
        if (type(other) is int and other < 0) or type(other) is float:  # a float64 Python float
            return float_view(rt.pow(rt.cast(self, "float64"), float(other)))
        out = rt.static.Variable.__pow__(_as_scalar_for(self, other), other)
        if _is_python_int(other):
            overflow_check("pow", self, other, out)
        return python_int(out) if _is_python_int(other) else out



def _shift_count(k):
    """A Python int shift count (a bool counts as its int); ValueError for a negative one, as Python's."""
    k = _bools.as_python_int(k)
    if type(k) is int:
        if k < 0:
            raise ValueError(_with_location("negative shift count"))
        return k
    if isinstance(k, PythonInt):
        from dy2st.operators.assert_print import Assert  # noqa: PLC0415  (assert_print imports operators)
        Assert(rt.greater_equal(k, rt.full([], 0, "int64")), "negative shift count", error="ValueError")
        return k
    raise TypeError(_with_location(f"a shift of a Python int known only when the Program runs by "
                                   f"{type(k).__name__}: shift by a Python int"))


def python_float(v):
    """Mark a float Variable as standing for a Python float (returns it)."""
    if type(v) is rt.static.Variable and v.dtype in ("float16", "float32", "float64"):
        v.__class__ = PythonFloat
    return v


def _float_result(other):
    """A Python float with any Python number (marked or not) stays one, with a tensor it is a tensor."""
    python = type(other) in (int, float) or isinstance(other, (PythonInt, PythonFloat))
    return python_float if python else None



def _keeps_float(name):
    return _keeping(name, 0.0, _float_result)


class PythonFloat(rt.static.Variable):
    """A float Variable that stands for a Python float (`float(t)`, a Python int divided, an element
    of `t.numpy()`): with a genuine tensor it takes that tensor's float dtype (float32 with an int
    one), as a Python float does eagerly; arithmetic with Python numbers keeps the mark."""

    python_number = 0.0

    __add__, __radd__ = _keeps_float("__add__"), _keeps_float("__radd__")
    __sub__, __rsub__ = _keeps_float("__sub__"), _keeps_float("__rsub__")
    __mul__, __rmul__ = _keeps_float("__mul__"), _keeps_float("__rmul__")
    __truediv__, __rtruediv__ = _keeps_float("__truediv__"), _keeps_float("__rtruediv__")
    __floordiv__, __rfloordiv__ = _keeps_float("__floordiv__"), _keeps_float("__rfloordiv__")
    __mod__, __rmod__ = _keeps_float("__mod__"), _keeps_float("__rmod__")
    __pow__, __rpow__ = _keeps_float("__pow__"), _keeps_float("__rpow__")

    __neg__, __abs__ = _marked_unary("__neg__", python_float), _marked_unary("__abs__", python_float)
    # compared with a tensor (either side: a subclass's reflected method goes first) a Python float
    # is a scalar of its dtype; a float64 carry compared as float64 would flip `acc < x.sum()`
    __lt__, __le__, __gt__, __ge__, __eq__, __ne__ = _comparisons(0.0)
    __hash__ = rt.static.Variable.__hash__

    def __pos__(self):
        return self

    def __round__(self, ndigits=None):
        """`round(n / 2)`: Python's int, ties to even; `round(v, k)` rounds decimal digits of the
        float's exact value, which a float tensor op cannot match: refused."""
        self = exact_of(self)  # Python rounds the float64 value
        if ndigits is not None:
            raise TypeError(_with_location(
                f"round(value, {ndigits}) of a Python float known only when the Program runs: Python rounds "
                "its exact decimal value, which tensor ops cannot reproduce; round(value) (to an int) works"))
        low = rt.floor(self)
        frac = rt.subtract(self, low)
        high = rt.add(low, rt.full([], 1.0, self.dtype))
        even = rt.equal(rt.remainder(low, rt.full([], 2.0, self.dtype)), rt.full([], 0.0, self.dtype))
        tie = rt.where(even, low, high)
        half = rt.full([], 0.5, self.dtype)
        picked = rt.where(rt.greater_than(frac, half), high, rt.where(rt.less_than(frac, half), low, tie))
        return python_int(rt.cast(picked, "int64"))


def is_python_float(value):
    """Whether a carry starts as a Python float (or a Variable standing for one)."""
    return type(value) is float or isinstance(value, PythonFloat)


def float64_start(value):
    """A Python float carry's start value: float64, the precision eager code sums it in (`acc += 0.1`
    summed in float32 drifts from the eager sum); user code sees it as a ``float_view``. (An int or
    bool where a float is on the other path: its float value.)"""
    if type(value) in (bool, int, float):
        return rt.full([], float(value), "float64")
    return rt.cast(exact_of(value), "float64")


def python_numbers(a, b):
    """Whether ``a`` and ``b`` (one value on two paths) are both Python numbers, one of them a float:
    a Python float either way, as eager code holds it."""
    kinds = (PythonInt, PythonFloat, _bools.PythonBool)
    return ((is_python_float(a) or is_python_float(b))
            and all(type(v) in (bool, int, float) or isinstance(v, kinds) for v in (a, b)))


def _mixed(op):
    def refuse(self, *args):
        raise TypeError(_with_location(
            f"`{op}` on an int that is a Python int on some paths and an int tensor on others (one branch "
            "of a tensor-dependent `if` assigns an int, the other an int tensor, a tensor loop turns an int "
            f"into a tensor, or a list built in a tensor loop holds both): Python's `{op}` on the int and the "
            "tensor's on the tensor differ, so the result "
            "would depend on the path the Program takes. Make both paths the same kind (rt.to_tensor(3) "
            "for the int, or int(t) for the tensor), or use `//`"))
    refuse.__name__ = op
    return refuse


def _keeps_mixed(name):
    base = getattr(rt.static.Variable, name)

    def op(self, other):
        out = base(self, other)
        return mark_int(out, "mixed") if _is_python_int(other) or isinstance(other, MixedInt) else out
    op.__name__ = name
    return op


class MixedInt(rt.static.Variable):
    """An int Variable that is a Python int on some run-time paths and an int tensor on others.
    `+ - * // %` agree on both (and keep the mark with Python ints); `/` and `**` do not (true
    division and float powers on the int), so they are refused at the user's line."""

    __truediv__ = __rtruediv__ = _mixed("/")
    __pow__ = __rpow__ = _mixed("**")
    __add__, __radd__, __sub__, __rsub__, __mul__, __rmul__ = (
        _keeps_mixed(n) for n in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__"))
    __floordiv__, __rfloordiv__, __mod__, __rmod__ = (
        _keeps_mixed(n) for n in ("__floordiv__", "__rfloordiv__", "__mod__", "__rmod__"))

    def __neg__(self):
        return mark_int(rt.static.Variable.__neg__(self), "mixed")


# (last: python_bools reads this module's names as it loads; its names are read here at call time)
from dy2st.operators import python_bools as _bools  # noqa: E402

# Values runtime reads when a Program runs that eager code sees as Python numbers (a scheduler's
# ``last_lr``/``last_epoch``) meet tensors and numbers as those do.
PYTHON_NUMBER_VIEWS.update(float=float_view, int=python_int)
