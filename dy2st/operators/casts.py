"""`_jst.AsDtype` / `_jst.Numpy` / `_jst.PyValue`: builtin casts and `.numpy()` in converted code.

A traced tensor stays traced (`int(x)` -> a 0-d int64 `cast`, `x.numpy()` -> `x`), as
Paddle's to_static does; Python values and eager tensors get the builtins' answers.
"""
import math

import runtime as rt

from dy2st.operators.common import _with_location, is_symbolic
from dy2st.operators.python_semantics import python_float, python_int

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
    y = _constant(rt.reshape(y, []) if y.ndim else y)
    return python_float(y) if kind == "float" else y  # a Python float eagerly


def _constant(v):
    """``v`` cut off from the gradient: eagerly it is a Python float or numpy array, which
    backward never reaches, so the Program's gradients must not flow through it either."""
    return v.detach() if v.dtype in ("float16", "float32", "float64") else v


def Numpy(x):
    """`x.numpy()`: the traced value itself while the Program is built (Paddle's to_static),
    without a gradient (a numpy array has none); the items read from it act as numpy scalars."""
    if not is_symbolic(x):
        return x.numpy()
    out = x.detach()
    if type(out) is rt.static.Variable:
        out.__class__ = NumpyValue
    return out


class NumpyValue(rt.static.Variable):
    """`t.numpy()` of a traced tensor. Eagerly an item of it (`a[0]`, `for v in a`) is a numpy
    scalar, which meets a tensor as a Python number does (an int32 tensor plus an int64 item stays
    int32): such items are marked as Python numbers; a slice is a numpy array again."""

    def __getitem__(self, key):
        out = rt.static.Variable.__getitem__(self, key)
        if out.ndim == 0:
            return python_float(out) if out.dtype.np.kind == "f" else python_int(out)
        if type(out) is rt.static.Variable:
            out.__class__ = NumpyValue
        return out

    def item(self, *args):
        """`a.item()` of a one-element array: its value as a Python number."""
        if args or (all(d >= 0 for d in self.shape) and math.prod(self.shape) != 1):
            raise TypeError(_with_location(
                f"numpy().item({', '.join(map(repr, args))}) of a traced tensor of shape {list(self.shape)}: "
                "only item() of one element is supported"))
        if self.ndim:
            return self[(0,) * self.ndim]
        out = rt.reshape(self, [])  # a new Variable to mark
        return python_float(out) if out.dtype.np.kind == "f" else python_int(out)


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
