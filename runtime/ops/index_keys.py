"""Python indexing keys read for the ``getitem``/``set_value`` ops (``indexing``): ``parse_key``
turns a key into the printable ``spec`` attr and its tensor indices; ``split_tensor_slices`` takes
out the slices whose bounds are tensors (a ``slice`` op on their own).
"""
import numpy as np

import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..tensor import TensorLike
from ..trace_state import _mode
from .common import as_tensor
from .shape_args import INT_DTYPES


_PLAIN = (int, type(None))


def _is_tensor_bound(v, static):
    return isinstance(v, _rt.framework.Variable) or (static and isinstance(v, TensorLike))


def _axes_used(k):
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, TensorLike) and k.dtype == "bool":
        return k.ndim
    if isinstance(k, (np.ndarray, list)) and np.asarray(k).dtype == np.bool_:
        return np.asarray(k).ndim
    return 1


def split_tensor_slices(x, key):
    """``(bounds, slices, rest)``: the slices of ``key`` with tensor bounds (for a ``slice`` op on
    ``x``) and the key left for ``getitem`` (those slices made ``:``).  ``slices`` is empty when
    every bound is a Python int."""
    items = key if type(key) is tuple else (key,)
    for k in items:  # the common case, kept cheap: no slice bound other than an int or None
        if type(k) is slice and not (type(k.start) in _PLAIN and type(k.stop) in _PLAIN and type(k.step) in _PLAIN):
            break
    else:
        return [], [], key
    static = _mode.static or isinstance(x, _rt.framework.Variable)
    if not any(isinstance(k, slice) and any(_is_tensor_bound(v, static) for v in (k.start, k.stop, k.step))
               for k in items):
        return [], [], key
    used = sum(_axes_used(k) for k in items)
    bounds, slices, rest, axis = [], [], [], 0
    for k in items:
        if k is Ellipsis:
            axis += max(x.ndim - used, 0)
        elif isinstance(k, slice) and any(_is_tensor_bound(v, static) for v in (k.start, k.stop, k.step)):
            spec = [axis]
            for v in (k.start, k.stop, k.step):
                if _is_tensor_bound(v, static):
                    if str(v.dtype) not in INT_DTYPES or int(np.prod(v.shape)) != 1:
                        raise TypeError(f"slice bounds must be ints or 1-element int tensors, got a {v.dtype} "
                                        f"tensor of shape {list(v.shape)}")
                    spec.append(["t", len(bounds)])
                    bounds.append(v)
                else:
                    spec.append(_bound(v))
            slices.append(spec)
            k = slice(None)
        rest.append(k)
        axis += _axes_used(k)
    return bounds, slices, tuple(rest)


def _bound(v):
    if v is None or isinstance(v, int):
        return v
    if isinstance(v, _rt.framework.Variable):
        raise TypeError(f"slice bounds must be Python ints when building a static Program, got Variable "
                        f"'{v.name}'; index with an int tensor (x[i]) or use rt.gather")
    return int(v.__index__())


def _holds_variable(items):
    return any(isinstance(v, _rt.framework.Variable) or (isinstance(v, list) and _holds_variable(v)) for v in items)


def parse_key(key):
    """(spec, tensor indices) for a Python indexing key."""
    if not isinstance(key, tuple):
        key = (key,)
    spec, idx = [], []
    for k in key:
        if isinstance(k, slice):
            spec.append(["s", _bound(k.start), _bound(k.stop), _bound(k.step)])
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            spec.append(["i", int(k)])
        elif k is None:
            spec.append(["n"])
        elif k is Ellipsis:
            spec.append(["e"])
        else:
            if isinstance(k, TensorLike):
                t = k
            elif isinstance(k, list) and _holds_variable(k):  # `x[[i, i + 1]]` with run-time ints: stacked
                t = _rt.to_tensor(k)
            elif isinstance(k, list) and not k:  # an empty list selects nothing (numpy would read float64)
                t = as_tensor(np.zeros(0, np.int64))
            else:
                t = as_tensor(np.asarray(k))
            if t.dtype not in ("bool", "int8", "int16", "int32", "int64", "uint8"):
                raise TypeError(f"tensor indices must be int or bool, got {t.dtype}")
            spec.append(["t", len(idx)])
            idx.append(t)
    return spec, idx
