"""Shapes given as lists of ints and int Tensors (Paddle's ``ShapeTensor`` / ``ShapeTensorList``).

Under ``InputSpec([None, 8])`` the batch size is a run-time value: ``x.shape[0]`` is a 0-d int
Variable, and the ops that take a shape (reshape, fill_constant, random tensors, expand, tile)
take such values as a variadic tensor input.  Their int attribute keeps ``None`` where a tensor
value goes, so the Program reads as what the user wrote::

    rt.zeros([x.shape[0], 8])  ->  fill_constant(ShapeTensor=[shape_0.x]) shape=[None, 8]

Static shape inference reads ``None`` as an unknown (-1) dim; the kernel fills the values in
when the Program runs.  Eager mode reads the tensors' values at once, so the op sees plain ints
and gives the same result.  A whole shape given as one 1-D int tensor is the same thing with
every dim ``None``.
"""
import numpy as np

import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..trace_state import _mode
from ..tensor import TensorLike

INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")
_INT = {int}


def _describe(v):
    if isinstance(v, TensorLike):
        return f"a {v.dtype} Tensor of shape {list(v.shape)}"
    return f"{type(v).__name__} {v!r:.40}"


def _check_element(d, what, arg, i):
    if str(d.dtype) not in INT_DTYPES:
        raise TypeError(f"{what}: {arg}[{i}] must be an int or a 1-element int Tensor, got {_describe(d)}")
    if any(s < 0 for s in d.shape):
        raise ValueError(f"{what}: {arg}[{i}] must be an int or a 1-element int Tensor, got {_describe(d)} "
                         "(its size is only known at run time); index one element, e.g. t[0]")
    if int(np.prod(d.shape, dtype=np.int64)) != 1:
        raise ValueError(f"{what}: {arg}[{i}] must be an int or a 1-element int Tensor, got {_describe(d)}")


def _whole(t, what, arg, static):
    """A whole shape given as one int tensor."""
    if str(t.dtype) not in INT_DTYPES or t.ndim > 1:
        raise TypeError(f"{what}: {arg} given as a Tensor must be a 1-D int Tensor, got {_describe(t)}")
    if not (static or isinstance(t, _rt.framework.Variable)):
        return [int(v) for v in np.ravel(t._value)], []
    n = 1 if t.ndim == 0 else t.shape[0]
    if n < 0:
        raise ValueError(f"{what}: {arg} given as {_describe(t)} has an unknown length, so the rank of the "
                         "result is unknown; give a list of dims instead (e.g. [t[0], t[1]])")
    return [None] * n, [t]


def split_shape(shape, what, arg="shape", like=None):
    """``(dims, tensors)`` for a user's shape: ``dims`` holds ints, and ``None`` where the values of
    ``tensors`` (in order, one element each) go at run time.  ``tensors`` is empty in eager mode
    (no static mode, no Variable among ``shape`` and ``like``, the op's tensor input)."""
    if type(shape) in (list, tuple) and set(map(type, shape)) <= _INT:  # the common case, kept cheap
        return list(shape), []
    static = _mode.static or isinstance(like, _rt.framework.Variable)
    if isinstance(shape, TensorLike):
        return _whole(shape, what, arg, static)
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        return [int(shape)], []
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{what}: {arg} must be a list or tuple of ints and 1-element int Tensors, or a 1-D "
                        f"int Tensor; got {_describe(shape)}")
    static = static or any(isinstance(d, _rt.framework.Variable) for d in shape)
    dims, tensors = [], []
    for i, d in enumerate(shape):
        if isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)):
            dims.append(int(d))
        elif isinstance(d, TensorLike):
            _check_element(d, what, arg, i)
            if static:  # a run-time value: an input of the op
                dims.append(None)
                tensors.append(d)
            else:
                dims.append(int(d._value.reshape(()).item()))
        else:
            raise TypeError(f"{what}: {arg}[{i}] must be an int or a 1-element int Tensor, got {_describe(d)} "
                            f"(in {arg} {show(shape)})")
    return dims, tensors


def tensor_input(tensors):
    """The op's shape-tensor argument: absent when the shape is all ints (no empty slot printed)."""
    return (tensors,) if tensors else ()


def no_grads(inputs, k):
    """The gradient entry of shape-tensor slot ``k`` of ``inputs``: nothing flows into a shape."""
    tensors = inputs[k] if k < len(inputs) else None
    return [None] * len(tensors) if isinstance(tensors, (list, tuple)) else None


def python_int(v, what, arg):
    """An int argument that must be known when the Program is built (an axis, a count)."""
    if isinstance(v, _rt.framework.Variable):
        raise TypeError(f"{what}: {arg} must be a Python int when building a static Program, got {_describe(v)} "
                        "whose value is only known at run time")
    if isinstance(v, TensorLike):  # an eager one-element int Tensor: its value now
        if str(v.dtype) not in INT_DTYPES or v.size != 1:
            raise TypeError(f"{what}: {arg} must be an int or a 1-element int Tensor, got {_describe(v)}")
        return int(v._value.reshape(()).item())
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what}: {arg} must be an int, got {_describe(v)}")
    return int(v)


def show(dims):
    """A shape list for messages, tensors shown as ``<tensor>``."""
    if not isinstance(dims, (list, tuple)):
        return repr(dims)
    return "[" + ", ".join("<tensor>" if d is None or isinstance(d, TensorLike) else repr(d) for d in dims) + "]"


def static_dims(dims):
    """What shape inference knows: tensor dims are unknown (-1)."""
    return [-1 if d is None else d for d in dims]


def fill_dims(dims, tensors, what):
    """Kernel side: ``dims`` with each ``None`` replaced by the next value of ``tensors``."""
    if not tensors:
        if None in dims:
            raise ValueError(f"{what}: the shape {show(dims)} has tensor dims but the op has no shape tensors")
        return dims
    values = []
    for t in tensors:
        if t.dtype.kind not in "iu":
            raise TypeError(f"{what}: shape tensors must hold ints, got {t.dtype}")
        values.extend(int(v) for v in np.ravel(t))
    need = sum(1 for d in dims if d is None)
    if len(values) != need:
        raise ValueError(f"{what}: the shape {show(dims)} has {need} tensor dims but its tensors hold "
                         f"{len(values)} values")
    it = iter(values)
    return [next(it) if d is None else d for d in dims]


def copied_dims(x, dims, tensors):
    """``rt.reshape(x, [x.shape[0], -1])``: a dim read from x's own shape at the same position is
    reshape's 0 (copy the input dim), which keeps the other dims known to shape inference."""
    if not tensors or len(tensors) != dims.count(None) or not hasattr(x, "block"):
        return dims, tensors
    dims, kept, k = list(dims), [], 0
    for i, d in enumerate(dims):
        if d is None:
            t = tensors[k]
            k += 1
            if shape_dim_of(t) == (x.name, i):
                dims[i] = 0
            else:
                kept.append(t)
    return dims, kept


def shape_dim_of(v):
    """``(name, i)`` when Variable ``v`` is ``shape(name)[i]``, built among the last ops of v's block
    with nothing writing ``name`` since."""
    block = getattr(v, "block", None)
    if block is None:
        return None
    recent = list(reversed(block.ops[-64:]))
    producer = next((op for op in recent if v.name in op.output_arg_names), None)
    if producer is None or producer.type != "getitem" or producer.inputs.get("Index"):
        return None
    spec = producer.attrs.get("spec") or []
    if len(spec) != 1 or spec[0][0] != "i":
        return None
    src = producer.input("X")[0]
    at = next((j for j, op in enumerate(recent) if src in op.output_arg_names), None)
    if at is None or recent[at].type != "shape":
        return None
    name = recent[at].input("X")[0]
    if any(name in op.output_arg_names for op in recent[:at]):
        return None
    rank = block.var(src).shape[0]
    return name, spec[0][1] % rank if rank > 0 else spec[0][1]


def known_ints(v):
    """The int values of ``v`` when they are known while the Program is built, else None: an eager int
    Tensor's values, or a Variable computed from ``shape(x)`` of an x with known dims by an index or
    slice (PaddleSeg's ``F.interpolate(logit, paddle.shape(x)[2:])`` under an unknown batch size), a
    ``paddle.slice``, an int cast and arithmetic with int constants (YOLOv3's upsampling size
    ``cast(slice(shape(x), [0], [2], [4]), 'int32') * 2``)."""
    if not isinstance(v, _rt.framework.Variable):
        return [int(d) for d in np.ravel(v._value)] if str(v.dtype) in INT_DTYPES else None
    dims = _shape_values(v)
    return None if dims is None or any(d < 0 for d in dims) else dims


# int arithmetic known_ints follows (on known values only: an unknown dim, -1, stays unknown)
_ARITH = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
          "floor_divide": lambda a, b: a // b if b else None}


def _shape_values(v, depth=0):
    """Variable ``v`` as known ints (-1 where unknown) when it derives from a shape op's input dims
    through the ops ``known_ints`` names, else None."""
    block = v.block
    recent = list(reversed(block.ops[-64:]))
    producer = next((op for op in recent if v.name in op.output_arg_names), None)
    if producer is None or depth > 16:
        return None
    kind = producer.type
    if kind == "shape":
        return list(block.var(producer.input("X")[0]).shape)
    if kind == "fill_constant" and list(producer.attrs.get("shape") or []) in ([], [1]) \
            and str(producer.attrs.get("dtype")) in INT_DTYPES:
        return [int(producer.attrs["value"])]
    if kind == "cast" and str(producer.attrs.get("dtype")) in INT_DTYPES:
        return _shape_values(block.var(producer.input("X")[0]), depth + 1)
    if kind in _ARITH:
        x, y = (_shape_values(block.var(producer.input(k)[0]), depth + 1) for k in ("X", "Y"))
        if x is None or y is None or (len(x) != len(y) and 1 not in (len(x), len(y))):
            return None
        if len(x) == 1 or len(y) == 1:
            x, y = x * max(len(x), len(y)), y * max(len(x), len(y))
        out = [-1 if a < 0 or b < 0 else _ARITH[kind](a, b) for a, b in zip(x[:len(y)], y[:len(x)])]
        return None if any(o is None for o in out) else out
    if kind == "slice":
        spec = producer.attrs.get("slices") or []
        if len(spec) != 1 or spec[0][0] != 0:
            return None
        base = _shape_values(block.var(producer.input("X")[0]), depth + 1)
        return None if base is None else base[slice(*spec[0][1:4])]
    spec = producer.attrs.get("spec") or [] if kind == "getitem" else []
    if producer.inputs.get("Index") or len(spec) != 1 or spec[0][0] not in ("i", "s"):
        return None
    base = _shape_values(block.var(producer.input("X")[0]), depth + 1)
    if base is None:
        return None
    return [base[spec[0][1]]] if spec[0][0] == "i" else base[slice(*spec[0][1:4])]
