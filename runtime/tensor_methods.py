"""``TensorMethods``: the operators and op-backed methods Tensor and Variable inherit, made from the op declarations.

The methods come from the op registry (each op declares the Tensor methods it
backs, ``def_op(..., methods=[...])``); the operators (``+``, ``[]``, ``&``...)
are Python's protocol and are listed here.  The same method works in both modes
because it is the public function, which routes through ``dispatch.apply``:
``x.sum(axis=1)`` is ``rt.sum(x, axis=1)``.  The class is made once every op is
declared, and ``Tensor`` (``runtime.tensor``) and ``Variable`` (``runtime.framework``)
are defined on it, so nothing is added to a class after it exists.  What needs no
op (``dim``, ``T``, hashing; ``Variable.size``/``detach``) is written in the classes.
"""

from . import assign  # noqa: F401  (declares the clone composite)
from .inplace import inplace_methods
from .ops import elementwise, indexing, logic, math
from .registry import tensor_methods
from .tensor_extra_methods import METHODS as EXTRA_METHODS
from .tensor import TensorLike


def _reflect(fn):
    def method(self, other):
        return fn(other, self)
    method.__name__ = "r" + fn.__name__
    return method


def _bool_or_bitwise(logical, bitwise):
    """``&``/``|``/``^`` are logical on bool tensors and bitwise on int tensors (as in Paddle); a float tensor
    operand is refused as Paddle refuses it (``bool & float`` was a logical and, ``float & bool`` a numpy error)."""
    def op(x, y):
        dx = getattr(x, "dtype", None)
        if any(str(getattr(v, "dtype", "")).startswith("float") for v in (x, y)):
            raise TypeError(f"unsupported operand dtypes for {bitwise.__name__} (& | ^): "
                            f"{getattr(x, 'dtype', type(x).__name__)} and {getattr(y, 'dtype', type(y).__name__)}; "
                            "they need bool or integer tensors")
        return logical(x, y) if dx == "bool" or (dx is None and getattr(y, "dtype", None) == "bool") \
            else bitwise(x, y)
    return op


_and = _bool_or_bitwise(logic.logical_and, logic.bitwise_and)
_or = _bool_or_bitwise(logic.logical_or, logic.bitwise_or)
_xor = _bool_or_bitwise(logic.logical_xor, logic.bitwise_xor)


def _invert(x):
    return logic.logical_not(x) if x.dtype == "bool" else logic.bitwise_not(x)


OPERATORS = {
    "__add__": math.add, "__radd__": _reflect(math.add),
    "__sub__": math.subtract, "__rsub__": _reflect(math.subtract),
    "__mul__": math.multiply, "__rmul__": _reflect(math.multiply),
    "__truediv__": math.divide, "__rtruediv__": _reflect(math.divide),
    "__floordiv__": elementwise.floor_divide, "__rfloordiv__": _reflect(elementwise.floor_divide),
    "__mod__": elementwise.remainder, "__rmod__": _reflect(elementwise.remainder),
    "__pow__": elementwise.power_operator, "__rpow__": _reflect(elementwise.power_operator),
    "__matmul__": math.matmul, "__rmatmul__": _reflect(math.matmul),
    "__neg__": elementwise.neg, "__abs__": elementwise.abs, "__pos__": lambda x: x,
    "__lt__": logic.less_than, "__le__": logic.less_equal,
    "__gt__": logic.greater_than, "__ge__": logic.greater_equal,
    "__eq__": logic.equal, "__ne__": logic.not_equal,
    "__and__": _and, "__rand__": _reflect(_and),
    "__or__": _or, "__ror__": _reflect(_or),
    "__xor__": _xor, "__rxor__": _reflect(_xor),
    "__invert__": _invert,
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
}

# Paddle's in-place methods (``x.add_(y)``): each its out-of-place method, then a write-back.
INPLACE = inplace_methods({**tensor_methods(), **OPERATORS, **EXTRA_METHODS})

# The protocol operators, every op-backed method the declarations name, the in-place methods, and the
# methods made of public functions (runtime/tensor_extra_methods.py).
TensorMethods = type("TensorMethods", (TensorLike,), {
    "__doc__": "The operators and op-backed methods (``x + y``, ``x.sum()``) of Tensor and Variable, "
               "made from the op declarations.",
    "__module__": __name__,
    "__slots__": (),
    # a class defining ``__eq__`` gets ``__hash__ = None``; tensors hash by identity (TensorLike)
    "__hash__": TensorLike.__hash__,
    # new_zeros, type_as, x.float(), requires_grad, strides, mT...: no op of their own
    **EXTRA_METHODS,
    **OPERATORS,
    **tensor_methods(),
    **INPLACE,
})
