"""Paddle 2.x searching and counting ops: unique, unique_consecutive, searchsorted, mode.

Their integer outputs (indices, inverse, counts, positions) carry no gradient; ``mode``'s value
sends its gradient to the index it reports.  Output sizes of unique* depend on the data, so their
static shapes have -1 there.
"""
import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op
from ..hints import DTypeLike, TensorLike

_DATA = "data-dependent output size; not lowered"


# -- unique ----------------------------------------------------------------------------------------
def _unique_kernel(x, axis=None, dtype="int64"):
    flat = x.reshape(-1) if axis is None else x
    # every NaN is its own value, as in Paddle (numpy's default folds them into one)
    out, index, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True,
                                            axis=axis, equal_nan=False)
    return out, index.astype(dtype), inverse.reshape(-1).astype(dtype), counts.astype(dtype)


def _unique_infer(x, axis=None, dtype="int64"):
    if axis is None:
        n = -1 if -1 in x.shape else int(np.prod(x.shape))
        return Meta([-1], x.dtype), Meta([-1], dtype), Meta([n], dtype), Meta([-1], dtype)
    shape = list(x.shape)
    n = shape[axis]
    shape[axis] = -1
    return Meta(shape, x.dtype), Meta([-1], dtype), Meta([n], dtype), Meta([-1], dtype)


def_op("unique", ["X"], ["Out", "Indices", "Index", "Counts"], attrs={"axis": None, "dtype": "int64"},
       kernel=_unique_kernel, infer=_unique_infer, no_onnx=_DATA, api=["unique"], methods=["unique"],
       doc="Sorted unique values (of the flattened x, or slices along axis), first indices, inverse, counts.")


def _pick(outs, flags):
    chosen = [o for o, f in zip(outs, flags) if f]
    return outs[0] if len(chosen) == 1 else tuple(chosen)


def unique(x: TensorLike, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, dtype: DTypeLike = "int64", sorted: bool = True,  # noqa: A002
           name: str | None = None) -> TensorLike | tuple[TensorLike, ...]:
    """The sorted unique values of ``x`` (flattened when ``axis`` is None), with, as asked, the index of
    each one's first occurrence, the inverse (each element's position in the result) and the counts."""
    outs = apply("unique", x, axis=None if axis is None else int(axis) % x.ndim, dtype=str(dtype))
    return _pick(list(outs), [True, return_index, return_inverse, return_counts])


def _unique_consecutive_kernel(x, axis=None, dtype="int64"):
    m = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    rows = m.reshape(m.shape[0], -1)
    starts = np.ones(m.shape[0], bool)
    starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    out = m[starts] if axis is None else np.moveaxis(m[starts], 0, axis)
    pos = np.flatnonzero(starts)
    counts = np.diff(np.append(pos, m.shape[0]))
    return out, (np.cumsum(starts) - 1).astype(dtype), counts.astype(dtype)


def _unique_consecutive_infer(x, axis=None, dtype="int64"):
    u, _, inverse, counts = _unique_infer(x, axis, dtype)
    return u, inverse, counts


def_op("unique_consecutive", ["X"], ["Out", "Index", "Counts"], attrs={"axis": None, "dtype": "int64"},
       kernel=_unique_consecutive_kernel, infer=_unique_consecutive_infer, no_onnx=_DATA,
       api=["unique_consecutive"], methods=["unique_consecutive"],
       doc="x with runs of equal consecutive values (or slices along axis) collapsed; inverse and counts.")


def unique_consecutive(x: TensorLike, return_inverse: bool = False, return_counts: bool = False,
                       axis: int | None = None, dtype: DTypeLike = "int64",
                       name: str | None = None) -> TensorLike | tuple[TensorLike, ...]:
    """``x`` (flattened when ``axis`` is None) with each run of equal consecutive values kept once; with, as
    asked, the inverse (each element's run) and the run lengths."""
    outs = apply("unique_consecutive", x, axis=None if axis is None else int(axis) % x.ndim, dtype=str(dtype))
    return _pick(list(outs), [True, return_inverse, return_counts])


# -- searchsorted ------------------------------------------------------------------------------------
def _searchsorted_kernel(seq, values, right=False, dtype="int64"):
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side).astype(dtype)
    if seq.shape[:-1] != values.shape[:-1]:
        raise ValueError(f"searchsorted: sorted_sequence's leading dims {list(seq.shape[:-1])} must match "
                         f"values' {list(values.shape[:-1])}")
    s, v = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s, v)]) if len(s) else np.zeros(v.shape)
    return out.reshape(values.shape).astype(dtype)


def_op("searchsorted", ["SortedSequence", "Values"], ["Out"], attrs={"right": False, "dtype": "int64"},
       kernel=_searchsorted_kernel, infer=lambda s, v, right=False, dtype="int64": Meta(v.shape, dtype),
       no_onnx="ONNX has no binary-search node", api=["searchsorted"],
       doc="Insertion positions of values into the sorted last dim of sorted_sequence.")


def searchsorted(sorted_sequence: TensorLike, values: TensorLike, out_int32: bool = False, right: bool = False,
                 name: str | None = None, *, side: str | None = None, sorter: TensorLike | None = None) -> TensorLike:
    """Where each of ``values`` goes in the sorted last dim of ``sorted_sequence`` (before equal entries,
    or after them when ``right``), as int64 (int32 with ``out_int32``). Paddle 3's ``side="right"`` sets
    ``right``; ``sorter`` (indices sorting the last dim) reorders the sequence first, as Paddle does."""
    if side is not None and side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if side == "right":
        right = True
    if sorter is not None:
        sorted_sequence = apply("take_along_axis", sorted_sequence, sorter, axis=-1)
    return apply("searchsorted", sorted_sequence, values, right=bool(right),
                 dtype="int32" if out_int32 else "int64")


# -- mode ------------------------------------------------------------------------------------------------
def _mode_kernel(x, axis=-1, keepdim=False):
    m = np.moveaxis(x, axis, -1)
    rows = m.reshape(-1, m.shape[-1])
    vals = np.empty(len(rows), x.dtype)
    idx = np.empty(len(rows), np.int64)
    for r, row in enumerate(rows):
        u, counts = np.unique(row, return_counts=True)
        vals[r] = u[np.argmax(counts)]  # the smallest of the most frequent values, as Paddle
        idx[r] = row.size - 1 - np.flatnonzero(row[::-1] == vals[r])[0]  # its last occurrence, as Paddle
    shape = m.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals, idx = np.expand_dims(vals, axis), np.expand_dims(idx, axis)
    return vals, idx


def _mode_infer(x, axis=-1, keepdim=False):
    shape = list(x.shape)
    a = axis % len(shape)
    shape = shape[:a] + ([1] if keepdim else []) + shape[a + 1:]
    return Meta(shape, x.dtype), Meta(shape, "int64")


def _mode_grad(ctx):
    x, g, idx = ctx.inputs[0], ctx.out_grads[0], ctx.outputs[1]
    axis = ctx.attrs["axis"] % x.ndim
    if not ctx.attrs["keepdim"]:
        g, idx = apply("unsqueeze", g, axis=[axis]), apply("unsqueeze", idx, axis=[axis])
    zero = apply("fill_any_like", x, value=0.0, dtype=str(g.dtype))
    return [apply("put_along_axis_add", zero, idx, g, axis=axis)]


def_op("mode", ["X"], ["Out", "Indices"], attrs={"axis": -1, "keepdim": False}, kernel=_mode_kernel,
       infer=_mode_infer, grad=_mode_grad, no_onnx="not lowered (a per-row histogram)", api=["mode"],
       methods=["mode"], doc="The most frequent value along axis (the smallest on ties) and its last index.")


def mode(x: TensorLike, axis: int = -1, keepdim: bool = False, name: str | None = None) -> tuple[TensorLike, TensorLike]:
    """``(values, indices)``: the most frequent value along ``axis`` (the smallest of tied ones) and the
    index of its last occurrence."""
    if x.ndim == 0:
        raise ValueError("mode: x must have rank >= 1, got a 0-d tensor")
    return apply("mode", x, axis=int(axis), keepdim=bool(keepdim))
