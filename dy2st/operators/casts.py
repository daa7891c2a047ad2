"""`_jst.AsDtype` / `_jst.Numpy` / `_jst.PyValue`: builtin casts and `.numpy()` in converted code.

A traced tensor stays traced (`int(x)` -> a 0-d int64 `cast`, `x.numpy()` -> `x`), as
Paddle's to_static does; Python values and eager tensors get the builtins' answers.
"""
import math

import runtime as rt

from dy2st.operators.common import _with_location, is_symbolic
from dy2st.operators.python_semantics import python_int

_PY = {"int": int, "float": float, "bool": bool}


def _target_dtype(x, kind):
    kinds = {"int": "iu", "float": "f", "bool": "b"}[kind]
    if x.dtype.np.kind in kinds:
        return x.dtype  # already an int/float/bool tensor: keep its width
    return {"int": "int64", "float": "float32", "bool": "bool"}[kind]


def AsDtype(x, kind):
    """`int(x)` / `float(x)` / `bool(x)`: a 0-d tensor of that kind for a traced tensor."""
    if not is_symbolic(x):
        return _PY[kind](x)
    if all(d >= 0 for d in x.shape) and math.prod(x.shape) != 1:
        raise TypeError(_with_location(
            f"{kind}() needs a tensor with one element, got shape {list(x.shape)}"))
    dtype = _target_dtype(x, kind)
    if kind == "int":  # a Python int eagerly: `/` on it divides truly (a new Variable, marked)
        return python_int(rt.reshape(rt.cast(x, dtype), []))
    y = x if x.dtype == dtype else rt.cast(x, dtype)
    return _constant(rt.reshape(y, []) if y.ndim else y)


def _constant(v):
    """``v`` cut off from the gradient: eagerly it is a Python float or numpy array, which
    backward never reaches, so the Program's gradients must not flow through it either."""
    return v.detach() if v.dtype in ("float16", "float32", "float64") else v


def Numpy(x):
    """`x.numpy()`: the traced value itself while the Program is built (Paddle's to_static),
    without a gradient (a numpy array has none)."""
    return _constant(x) if is_symbolic(x) else x.numpy()


def PyValue(fn, x):
    """`fn(x)` whose result goes to Python code (json, math, str(), f-strings): a traced tensor
    has no value yet, so say where and what to do instead."""
    if is_symbolic(x):
        raise TypeError(_with_location(
            f"{fn.__name__}() of a traced tensor ('{x.name}', {x.dtype}{list(x.shape)}) is passed to "
            "Python code that needs a real value, which exists only when the Program runs. Keep "
            "this in eager code, or convert with dy2st.to_static(..., full_graph=False) to run the "
            "function eagerly when it cannot be converted"))
    return fn(x)
