"""Paddle's ``slice`` and ``strided_slice``: slicing given as lists of axes and bounds.

Bounds may be ints, 1-element int Tensors or a 1-D int Tensor, so a static Program reads them
when it runs (``starts=[0], ends=[x.shape[1] - 1]`` under an unknown dim).  Both build the
``slice`` op of ``indexing`` (the one ``x[a:b]`` with tensor bounds builds)::

    rt.slice(x, axes=[1], starts=[0], ends=[n])  ->  slice(X=x, Bounds=[n]) slices=[[1, 0, ["t", 0], 1]]

Python's clamping applies: an end past the dim stops at the dim, negative bounds count from
the end, as in Paddle.
"""
from ..dispatch import apply
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..trace_state import _mode
from ..tensor import TensorLike
from .shape_args import python_int, split_shape, tensor_input
from collections.abc import Sequence


def _entries(values, static):
    """A whole 1-D bounds tensor as its elements (each bound is one tensor input)."""
    if static and isinstance(values, TensorLike) and values.ndim == 1 and values.shape[0] >= 0:
        return [values[i] for i in range(values.shape[0])]
    return values


def strided_slice(x: TensorLike, axes: Sequence[int], starts: Sequence[int | TensorLike],
                  ends: Sequence[int | TensorLike], strides: Sequence[int | TensorLike],
                  name: str | None = None) -> TensorLike:
    """``x`` sliced on each of ``axes`` from ``starts`` to ``ends`` (exclusive) by ``strides``."""
    axes = [python_int(a, "strided_slice", f"axes[{i}]") for i, a in enumerate(axes)]
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"strided_slice: axis {a} is out of range for a tensor of shape {list(x.shape)}")
    static = _mode.static or isinstance(x, _rt.framework.Variable)
    bounds, columns = [], []
    for arg, values in (("starts", starts), ("ends", ends), ("strides", strides)):
        dims, tensors = split_shape(_entries(values, static), "strided_slice", arg, like=x)
        if len(dims) != len(axes):
            raise ValueError(f"strided_slice: {arg} has {len(dims)} entries but axes has {len(axes)}: {list(axes)}")
        pending = iter(tensors)
        column = []
        for d in dims:
            if d is None:
                column.append(["t", len(bounds)])
                bounds.append(next(pending))
            else:
                column.append(d)
        columns.append(column)
    slices = [[a % x.ndim, s, e, st] for a, s, e, st in zip(axes, *columns)]
    return apply("slice", x, *tensor_input(bounds), slices=slices)


def slice(input: TensorLike, axes: Sequence[int], starts: Sequence[int | TensorLike],
          ends: Sequence[int | TensorLike]) -> TensorLike:  # noqa: A001,A002  (Paddle's names)
    """``input`` sliced on each of ``axes`` from ``starts`` to ``ends`` (exclusive)."""
    return strided_slice(input, axes, starts, ends, [1] * len(axes))
