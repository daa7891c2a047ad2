"""Operators and methods of Tensor and Variable, attached once to their shared base.

The same method works in both modes because it calls the public function,
which routes through ``dispatch.apply``.
"""
from . import ops
from .tensor import TensorLike


def _reflect(fn):
    return lambda self, other: fn(other, self)


_OPERATORS = {
    "__add__": ops.math.add, "__radd__": _reflect(ops.math.add),
    "__sub__": ops.math.subtract, "__rsub__": _reflect(ops.math.subtract),
    "__mul__": ops.math.multiply, "__rmul__": _reflect(ops.math.multiply),
    "__truediv__": ops.math.divide, "__rtruediv__": _reflect(ops.math.divide),
    "__matmul__": ops.math.matmul, "__rmatmul__": _reflect(ops.math.matmul),
}

_METHODS = {
    "add": ops.math.add, "subtract": ops.math.subtract, "multiply": ops.math.multiply,
    "divide": ops.math.divide, "matmul": ops.math.matmul, "scale": ops.math.scale,
    "relu": ops.math.relu, "astype": ops.common.cast, "cast": ops.common.cast,
}


def install():
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(TensorLike, name, fn)


install()
