"""`_jst.Len` / `_jst.Shape`: unknown dims of a symbolic tensor -> a `shape` op; known dims and
Python values -> plain ints (Python's `len` / `.shape`)."""
import runtime as rt

from dy2st.operators.common import _length, is_symbolic
from dy2st.operators.python_semantics import python_int
from dy2st.operators.tensor_array import TensorArray


def Len(x):
    """``len(x)``: a ``shape`` op's first element when the first dim is unknown, else a plain int."""
    if isinstance(x, TensorArray):
        return x.length()
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


def Shape(x):
    """``x.shape``: a symbolic shape for a Variable with unknown dims, else the list of ints."""
    if is_symbolic(x) and any(d < 0 for d in x.shape):
        return _SymbolicShape(x)
    return x.shape
