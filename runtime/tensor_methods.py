"""Operators and methods of Tensor and Variable: the one table, attached once to their shared base.

The same method works in both modes because it calls the public function,
which routes through ``dispatch.apply``.  ``x.sum(axis=1)`` is ``rt.sum(x, axis=1)``.
"""
from .assign import clone
from .ops import common, creation, elementwise, indexing, logic, math, reduce, shape, sort
from .tensor import TensorLike


def _reflect(fn):
    def method(self, other):
        return fn(other, self)
    method.__name__ = "r" + fn.__name__
    return method


def _bool_or_bitwise(logical, bitwise):
    """``&``/``|``/``^`` are logical on bool tensors and bitwise on int tensors (as in Paddle)."""
    def op(x, y):
        dx = getattr(x, "dtype", None)
        return logical(x, y) if dx == "bool" or (dx is None and getattr(y, "dtype", None) == "bool") \
            else bitwise(x, y)
    return op


_and = _bool_or_bitwise(logic.logical_and, logic.bitwise_and)
_or = _bool_or_bitwise(logic.logical_or, logic.bitwise_or)
_xor = _bool_or_bitwise(logic.logical_xor, logic.bitwise_xor)


def _invert(x):
    return logic.logical_not(x) if x.dtype == "bool" else logic.bitwise_not(x)


def _transposed(x):
    return shape.transpose(x, list(range(x.ndim))[::-1])


_OPERATORS = {
    "__add__": math.add, "__radd__": _reflect(math.add),
    "__sub__": math.subtract, "__rsub__": _reflect(math.subtract),
    "__mul__": math.multiply, "__rmul__": _reflect(math.multiply),
    "__truediv__": math.divide, "__rtruediv__": _reflect(math.divide),
    "__floordiv__": elementwise.floor_divide, "__rfloordiv__": _reflect(elementwise.floor_divide),
    "__mod__": elementwise.remainder, "__rmod__": _reflect(elementwise.remainder),
    "__pow__": elementwise.pow, "__rpow__": _reflect(elementwise.pow),
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

_METHODS = {
    # arithmetic
    "add": math.add, "subtract": math.subtract, "multiply": math.multiply, "divide": math.divide,
    "matmul": math.matmul, "mm": math.matmul, "scale": math.scale, "relu": math.relu,
    "floor_divide": elementwise.floor_divide, "remainder": elementwise.remainder, "mod": elementwise.remainder,
    "pow": elementwise.pow, "maximum": elementwise.maximum, "minimum": elementwise.minimum,
    "clip": elementwise.clip, "exp": elementwise.exp, "log": elementwise.log, "sqrt": elementwise.sqrt,
    "rsqrt": elementwise.rsqrt, "abs": elementwise.abs, "tanh": elementwise.tanh, "sigmoid": elementwise.sigmoid,
    "square": elementwise.square, "neg": elementwise.neg, "sign": elementwise.sign, "sin": elementwise.sin,
    "cos": elementwise.cos, "reciprocal": elementwise.reciprocal, "floor": elementwise.floor,
    "ceil": elementwise.ceil, "round": elementwise.round,
    # reductions
    "sum": reduce.sum, "mean": reduce.mean, "max": reduce.max, "min": reduce.min, "prod": reduce.prod,
    "all": reduce.all, "any": reduce.any, "argmax": reduce.argmax, "argmin": reduce.argmin,
    "cumsum": reduce.cumsum, "numel": reduce.numel,
    # shapes
    "reshape": shape.reshape, "transpose": shape.transpose, "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze, "flatten": shape.flatten, "split": shape.split, "chunk": shape.chunk,
    "unstack": shape.unstack, "gather": shape.gather, "expand": shape.expand, "broadcast_to": shape.broadcast_to,
    "expand_as": shape.expand_as, "tile": shape.tile, "index_add": shape.index_add,
    # logic
    "equal": logic.equal, "not_equal": logic.not_equal, "less_than": logic.less_than,
    "less_equal": logic.less_equal, "greater_than": logic.greater_than, "greater_equal": logic.greater_equal,
    "logical_and": logic.logical_and, "logical_or": logic.logical_or, "logical_not": logic.logical_not,
    "logical_xor": logic.logical_xor, "isfinite": logic.isfinite, "isnan": logic.isnan, "isinf": logic.isinf,
    "nonzero": logic.nonzero, "bitwise_and": logic.bitwise_and, "bitwise_or": logic.bitwise_or,
    "bitwise_xor": logic.bitwise_xor, "bitwise_not": logic.bitwise_not,
    "where": lambda x, condition, y: logic.where(condition, x, y),
    # sorting
    "topk": sort.topk, "sort": sort.sort, "argsort": sort.argsort, "take_along_axis": sort.take_along_axis,
    # dtype / creation
    "astype": common.cast, "cast": common.cast, "clone": clone,
    "zeros_like": creation.zeros_like, "ones_like": creation.ones_like, "full_like": creation.full_like,
}

_PROPERTIES = {
    "T": _transposed,
}


def install():
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(TensorLike, name, fn)
    for name, fn in _PROPERTIES.items():
        setattr(TensorLike, name, property(fn))
    # Tensor defines its own eager detach(); a Variable's is a stop_gradient op.
    TensorLike.detach = common.stop_gradient
    # Elementwise ``==`` would make tensors unhashable; they hash by identity.
    TensorLike.__hash__ = object.__hash__


install()
