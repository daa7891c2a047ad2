"""Sorting: topk, sort, argsort, and the along-axis gather/scatter their gradients use."""
import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op
from ..hints import TensorLike


def _order(x, axis, descending):
    """Stable order: equal values keep their index order, descending too (as ONNX TopK breaks ties).
    nan counts as the largest value, as in Paddle: last ascending, first descending."""
    if descending:
        # not argsort(-x): that puts nan last, and -x overflows at the smallest int and is wrong for
        # bool/unsigned. Sort the reversed axis ascending, read it backwards, map the positions back.
        rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
        return x.shape[axis] - 1 - np.flip(rev, axis)
    return np.argsort(x, axis=axis, kind="stable")


def _argsort_kernel(x, axis=-1, descending=False):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = _order(x, axis, descending)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int64)


def _topk_kernel(x, k=1, axis=-1, largest=True, sorted=True):  # noqa: A002
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise ValueError(f"topk: k={k} must be in [0, {n}] for axis {axis} of shape {list(x.shape)}")
    idx = np.take(_order(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int64)


def _topk_infer(x, k=1, axis=-1, largest=True, sorted=True):  # noqa: A002
    shape = list(x.shape)
    a = axis % len(shape)
    if shape[a] >= 0 and k > shape[a]:
        raise ValueError(f"topk: k={k} is larger than dim {a} of shape {shape}")
    shape[a] = k
    return Meta(shape, x.dtype), Meta(shape, "int64")


def _scatter_back(ctx):
    """Gradient of a gather along axis by the Indices output: add the grads back where they came from."""
    x, g, idx = ctx.inputs[0], ctx.out_grads[0], ctx.outputs[1]
    if g is None:
        return [None]
    zero = apply("fill_any_like", x, value=0.0, dtype=str(g.dtype))
    return [apply("put_along_axis_add", zero, idx, g, axis=ctx.attrs["axis"])]


def _put_add_kernel(x, index, updates, axis=-1):
    out = x.copy()
    ax = axis % x.ndim
    grid = list(np.ix_(*[np.arange(d) for d in index.shape]))
    grid[ax] = index
    np.add.at(out, tuple(grid), updates)
    return out


def_op("argsort", ["X"], ["Out", "Indices"], attrs={"axis": -1, "descending": False}, kernel=_argsort_kernel,
       infer=lambda x, axis=-1, descending=False: (Meta(x.shape, x.dtype), Meta(x.shape, "int64")),
       grad=_scatter_back, onnx="argsort", api=["sort", "argsort"], methods=["sort", "argsort"],
       doc="Sorted values and their indices along axis.")
def_op("top_k", ["X"], ["Out", "Indices"], attrs={"k": 1, "axis": -1, "largest": True, "sorted": True},
       kernel=_topk_kernel, infer=_topk_infer, grad=_scatter_back, onnx="top_k", api=["topk"], methods=["topk"])
def_op("take_along_axis", ["X", "Index"], ["Out"], attrs={"axis": -1},
       kernel=lambda x, index, axis=-1: np.take_along_axis(x, index, axis),
       infer=lambda x, index, axis=-1: Meta(index.shape, x.dtype),
       grad=lambda ctx: [apply("put_along_axis_add",
                               apply("fill_any_like", ctx.inputs[0], value=0.0, dtype=str(ctx.inputs[0].dtype)),
                               ctx.inputs[1], ctx.out_grads[0], axis=ctx.attrs["axis"]), None],
       onnx="take_along_axis", api=["take_along_axis"], methods=["take_along_axis"])
def_op("put_along_axis_add", ["X", "Index", "Updates"], ["Out"], attrs={"axis": -1}, kernel=_put_add_kernel,
       infer=lambda x, i, u, axis=-1: Meta(x.shape, x.dtype),
       grad=lambda ctx: [ctx.out_grads[0], None,
                         apply("take_along_axis", ctx.out_grads[0], ctx.inputs[1], axis=ctx.attrs["axis"])],
       onnx="scatter_add", api=["put_along_axis_add"],
       doc="x with updates added at index along axis (repeated indices accumulate).")


def on_scalar(fn, x, axis, what, k=1):
    """``fn`` on a 0-d ``x`` as on a 1-element vector, its outputs made 0-d again (Paddle sorts a scalar
    so: axis 0 or -1, k 1)."""
    import runtime as _rt  # noqa: PLC0415  (runtime.framework loads after the op declarations)
    if axis not in (None, 0, -1):
        raise ValueError(f"{what}: axis {axis} is out of range for a 0-d tensor (0 or -1)")
    if not isinstance(k, _rt.framework.Variable) and int(k) != 1:
        raise ValueError(f"{what}: k={k} must be 1 for a 0-d tensor")
    out = fn(_rt.reshape(x, [1]))
    if isinstance(out, (tuple, list)):
        return tuple(_rt.reshape(t, []) for t in out)
    return _rt.reshape(out, [])


def topk(x: TensorLike, k: int, axis: int | None = None, largest: bool = True, sorted: bool = True,
         name: str | None = None) -> tuple[TensorLike, TensorLike]:  # noqa: A002
    """``(values, indices)`` of the ``k`` largest (or smallest unless ``largest``) along ``axis`` (last by default)."""
    import runtime as _rt  # noqa: PLC0415  (runtime.framework loads after the op declarations)
    if len(x.shape) == 0:
        return on_scalar(lambda v: topk(v, k, -1, largest, sorted), x, axis, "topk", k)
    if isinstance(k, _rt.framework.Variable):
        # k known when the Program runs (SSD hard negatives: 3 * num_pos): the head of the order
        # top_k takes its first k from (the same stable order, so the same values and indices)
        ax = -1 if axis is None else int(axis)
        out = apply("argsort", x, axis=ax, descending=bool(largest))
        end = _rt.reshape(_rt.cast(k, "int64"), [])
        return tuple(_rt.slice(t, [ax], [0], [end]) for t in out)
    return apply("top_k", x, k=int(k), axis=-1 if axis is None else int(axis), largest=bool(largest),
                 sorted=bool(sorted))


def sort(x: TensorLike, axis: int = -1, descending: bool = False, stable: bool = False,
         name: str | None = None) -> TensorLike:
    """``x`` sorted along ``axis``, ascending unless ``descending``; always stable (``stable`` is Paddle's flag)."""
    if len(x.shape) == 0:
        return on_scalar(lambda v: sort(v, -1, descending), x, axis, "sort")
    return apply("argsort", x, axis=int(axis), descending=bool(descending))[0]


def argsort(x: TensorLike, axis: int = -1, descending: bool = False, stable: bool = False,
            name: str | None = None) -> TensorLike:
    """Indices that sort ``x`` along ``axis``, ascending unless ``descending``; equal values keep their order
    whatever ``stable`` says (Paddle's flag asks for that order, which is always given here)."""
    if len(x.shape) == 0:
        return on_scalar(lambda v: argsort(v, -1, descending), x, axis, "argsort")
    return apply("argsort", x, axis=int(axis), descending=bool(descending))[1]


def take_along_axis(arr: TensorLike, indices: TensorLike, axis: int, broadcast: bool = True) -> TensorLike:
    """Values of ``arr`` at ``indices`` along ``axis`` (numpy ``take_along_axis``: a smaller index is broadcast
    over ``arr``'s other dims); with ``broadcast=False`` only the leading block of ``arr`` the index covers."""
    ax = int(axis) % max(arr.ndim, 1)
    if broadcast:  # each broadcast over the other's dims (numpy's kernel would, but not the gradient)
        from .index_extra import broadcast_along  # noqa: PLC0415  (index_extra builds on this module)
        indices, arr = broadcast_along(indices, arr, ax), broadcast_along(arr, indices, ax)
    if not broadcast and indices.ndim == arr.ndim:
        cut = [slice(0, i) if a > i >= 0 and d != ax else slice(None)
               for d, (a, i) in enumerate(zip(arr.shape, indices.shape))]
        if any(c != slice(None) for c in cut):
            arr = arr[tuple(cut)]
    return apply("take_along_axis", arr, indices, axis=int(axis))


def put_along_axis_add(arr: TensorLike, indices: TensorLike, values: TensorLike, axis: int) -> TensorLike:
    """``arr`` with ``values`` added at ``indices`` along ``axis`` (the gradient of ``take_along_axis``)."""
    return apply("put_along_axis_add", arr, indices, values, axis=int(axis))
