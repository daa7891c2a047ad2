"""ONNX lowerings of shapes that hold run-time dims, and of ``slice`` (tensor slice bounds).

A shape attr ``[None, 4]`` with ``ShapeTensor=[b]`` (see ``runtime/ops/shape_args.py``) becomes an
int64 vector computed in the graph, fed to the ONNX op that takes a shape as an input::

    reshape(X=x, ShapeTensor=[b]) shape=[None, -1]
      ->  Reshape(x, Concat(Reshape(Cast(b, int64), [-1]), [-1]))

``fill_constant`` becomes ``ConstantOfShape``, ``expand`` ``Expand``, ``tile`` ``Tile``.  An op without shape tensors keeps the
lowering it had before this module was imported.  ``ops`` imports this module after its own
lowerings; it wraps ``reshape``/``expand``/``tile`` in place and adds ``fill_constant`` and ``slice``.
Random ops are declared without a lowering (no ONNX random op reproduces their values).
"""
import numpy as np
from onnx import TensorProto, helper

from .lowering import INT64_MAX, INT64_MIN, LOWERINGS, ints, lowering, onnx_dtype


def _int64_vector(ex, name, dtype):
    """A tensor's values as a 1-D int64 ONNX value."""
    if str(dtype) != "int64":
        name = ex.node("Cast", [name], to=TensorProto.INT64)
    return ex.node("Reshape", [name, ints(ex, [-1])])


def shape_vector(ex, dims, slot):
    """``dims`` as a 1-D int64 ONNX value, each ``None`` taken in order from the tensors of ``slot``."""
    names = ex.ins(slot)
    pieces, run, k, left = [], [], 0, 0
    for d in dims:
        if d is not None:
            run.append(int(d))
            continue
        if left == 0:  # the next tensor; its elements fill the next None dims
            if run:
                pieces.append(ints(ex, run))
                run = []
            var = ex.var(slot, k)
            left = max(int(np.prod(var.shape)), 1)
            pieces.append(_int64_vector(ex, names[k], var.dtype))
            k += 1
        left -= 1
    if run or not pieces:
        pieces.append(ints(ex, run))
    return _concat(ex, pieces)


def _with_tensors(plain, slot, dynamic):
    """``dynamic`` when the op has tensors in ``slot``, else the ``plain`` lowering."""
    def fn(ex, op):
        if op.inputs.get(slot):
            return dynamic(ex, op)
        return plain(ex, op)
    fn.__name__ = dynamic.__name__
    return fn


def _reshape(ex, op):  # ONNX Reshape copies a 0 and infers one -1, like the kernel
    ex.node("Reshape", [ex.i("X"), shape_vector(ex, op.attrs["shape"], "ShapeTensor")], ex.o("Out"))


def _fill_constant(ex, op):
    dt = op.attrs.get("dtype", "float32")
    value = helper.make_tensor("value", onnx_dtype(dt), [1], [np.asarray(op.attrs.get("value", 0.0), dt).item()])
    ex.node("ConstantOfShape", [shape_vector(ex, op.attrs["shape"], "ShapeTensor")], ex.o("Out"), value=value)


def _expand(ex, op):
    """-1 keeps the input dim: ONNX Expand broadcasts a 1 the same way (also for run-time -1s)."""
    dims = [1 if d == -1 else d for d in op.attrs["shape"]]
    vec = shape_vector(ex, dims, "ShapeTensor")
    vec = ex.node("Where", [ex.node("Less", [vec, ints(ex, 0)]), ints(ex, 1), vec])
    ex.node("Expand", [ex.i("X"), vec], ex.o("Out"))


def _tile(ex, op):
    reps, x, rank = list(op.attrs["repeat_times"]), ex.i("X"), ex.var("X").ndim
    if len(reps) > rank:  # np.tile prepends ones to the input's shape
        x = ex.node("Reshape", [x, ints(ex, [1] * (len(reps) - rank) + [0] * rank)])
    reps = [1] * (rank - len(reps)) + reps
    ex.node("Tile", [x, shape_vector(ex, reps, "RepeatTensor")], ex.o("Out"))


def _bound(ex, v, names, default=None):
    """One slice bound as a 1-element int64 ONNX value (a tensor, an int, or the default)."""
    if isinstance(v, (list, tuple)):
        return _int64_vector(ex, names[v[1]], ex.var("Bounds", v[1]).dtype)
    return ints(ex, [default if v is None else int(v)])


def _slice(ex, op):
    """Python slicing: a missing bound is the start/end for the step's sign (chosen at run time
    when the step is a tensor)."""
    names = ex.ins("Bounds")
    starts, ends, steps, axes = [], [], [], []
    for axis, start, stop, step in op.attrs["slices"]:
        axes.append(int(axis))
        steps.append(_bound(ex, step, names, 1))
        positive = None if isinstance(step, (list, tuple)) else (step is None or step > 0)
        for v, out, pos, neg in ((start, starts, 0, INT64_MAX), (stop, ends, INT64_MAX, INT64_MIN)):
            if v is not None or positive is not None:
                out.append(_bound(ex, v, names, pos if positive else neg))
            else:
                up = ex.node("Greater", [steps[-1], ints(ex, [0])])
                out.append(ex.node("Where", [up, ints(ex, [pos]), ints(ex, [neg])]))
    ex.node("Slice", [ex.i("X"), _concat(ex, starts), _concat(ex, ends), ints(ex, axes), _concat(ex, steps)],
            ex.o("Out"))


def _concat(ex, pieces):
    return pieces[0] if len(pieces) == 1 else ex.node("Concat", pieces, axis=0)


# Imported by ops after its own lowerings: each plain one is wrapped in place.
LOWERINGS["reshape"] = _with_tensors(LOWERINGS["reshape"], "ShapeTensor", _reshape)
LOWERINGS["expand"] = _with_tensors(LOWERINGS["expand"], "ShapeTensor", _expand)
LOWERINGS["tile"] = _with_tensors(LOWERINGS["tile"], "RepeatTensor", _tile)
lowering("fill_constant")(_with_tensors(LOWERINGS["fold"], "ShapeTensor", _fill_constant))
lowering("slice")(_slice)
