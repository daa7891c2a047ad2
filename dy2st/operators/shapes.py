"""`_jst.Len` / `_jst.Shape`: unknown dims of a symbolic tensor -> a `shape` op; known dims and
Python values -> plain ints (Python's `len` / `.shape`)."""
import runtime as rt

from dy2st.operators.casts import NumpyValue
from dy2st.operators.common import _length, is_symbolic
from dy2st.operators.python_semantics import python_int
from dy2st.operators.tensor_array import TensorArray


def Len(x):
    """``len(x)``: a ``shape`` op's first element when the first dim is unknown, else a plain int."""
    if isinstance(x, TensorArray):
        n = x.length()  # a Python int eagerly: marked, so `/` on it divides truly
        return python_int(n) if is_symbolic(n) else n
    n = _length(x)
    return python_int(n) if is_symbolic(x) else n  # a fresh `shape` element, or an int


class _SymbolicShape(list):
    """A Variable's shape: known dims as ints, unknown ones as elements of a `shape` op."""

    def __init__(self, var):
        dims = var.shape
        self._runtime = rt.shape(var) if any(d < 0 for d in dims) else None
        # An unknown dim is a Python int eagerly: marked, so `/` on it divides truly.
        super().__init__(d if d >= 0 else python_int(self._runtime[i]) for i, d in enumerate(dims))

    def as_tensor(self):
        return self._runtime

    def __eq__(self, other):
        """`x.shape == other`: Python's answer when the known dims decide it (a length or a known
        dim differs), else a bool tensor (all dims equal) the Program computes."""
        if not isinstance(other, list) or len(other) != len(self):  # a tuple is never equal to a list
            return list.__eq__(self, other)
        pending = []
        for a, b in zip(self, other):
            if is_symbolic(a) or is_symbolic(b):
                pending.append(rt.equal(a, b) if is_symbolic(a) else rt.equal(b, a))
            elif a != b:
                return False
        out = pending[0] if pending else True
        for p in pending[1:]:
            out = rt.logical_and(out, p)
        return out

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else (rt.logical_not(eq) if is_symbolic(eq) else not eq)

    __hash__ = None


def Size(x):
    """``x.size``: a Python int eagerly, so the ``numel`` of a Variable with unknown dims is
    marked (``x.size / 4`` divides truly); any other object's ``size`` as it is."""
    n = x.size
    return python_int(n) if is_symbolic(x) and is_symbolic(n) else n


def Shape(x):
    """``x.shape``: a symbolic shape for a Variable with unknown dims, else the list of ints (a
    tuple for `t.numpy()`, as numpy gives: `a.shape == [1]` is False eagerly)."""
    if is_symbolic(x) and any(d < 0 for d in x.shape):
        shape = _SymbolicShape(x)
        return tuple(shape) if isinstance(x, NumpyValue) else shape
    return tuple(x.shape) if isinstance(x, NumpyValue) else x.shape
