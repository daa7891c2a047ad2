"""Shape ops: reshape transpose squeeze unsqueeze flatten gather shape (concat, stack, split
live in ``join_split``, expand and tile in ``broadcast``).

Shape-only ops take their gradient with ``reshape_as(g, x)``, which reads the
target shape at run time, so a static Program with unknown (-1) dims works.
A reshape target may hold run-time dims (1-element int tensors, see ``shape_args``).
"""
import numpy as np

from ..dispatch import apply
from ..registry import Meta, def_op
from .broadcast import broadcast_to, expand, expand_as, tile  # noqa: F401  (public here too)
from .shape_args import copied_dims, fill_dims, no_grads, python_int, show, split_shape, tensor_input
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..tensor import TensorLike
from collections.abc import Sequence
from ..hints import Axis, ShapeLike


def _norm_axis(axis, ndim, what):
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"{what}: axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim if ndim else 0


def _int_list(v, what, arg="axis"):
    if isinstance(v, TensorLike) and not isinstance(v, _rt.framework.Variable):
        v = v.numpy().tolist()
    if isinstance(v, (list, tuple)):
        return [python_int(d, what, f"{arg}[{i}]") for i, d in enumerate(v)]
    return [python_int(v, what, arg)]


def _prod(dims):
    n = 1
    for d in dims:
        if d < 0:
            return -1
        n *= d
    return n


# -- reshape ---------------------------------------------------------------------------------
def _resolve_shape(in_shape, shape):
    """Target shape with 0 (copy the input dim) and one -1 (inferred) resolved where known.

    ``None`` is a dim given by a tensor (known at run time only): unknown here."""
    out = []
    for i, d in enumerate(shape):
        if d is None:
            out.append(-1)
        elif d == 0:
            if i >= len(in_shape):
                raise ValueError(f"reshape: 0 at position {i} of shape {show(shape)} copies an input dim, "
                                 f"but the input shape {list(in_shape)} has only {len(in_shape)} dims")
            out.append(in_shape[i])
        elif d < -1:
            raise ValueError(f"reshape: invalid dim {d} in shape {show(shape)}")
        else:
            out.append(d)
    # An unknown input dim copied by 0 cancels against itself: [-1, 3, 4] -> [0, -1] is [-1, 12].
    copied = {i for i, d in enumerate(shape) if d == 0 and in_shape[i] == -1}
    if list(shape).count(-1) > 1:
        raise ValueError(f"reshape: shape {show(shape)} has more than one -1 (in a static Program x.shape "
                         "holds -1 for a dim known only at run time: use rt.shape(x)[i] for it)")
    total = _prod([d for i, d in enumerate(in_shape) if i not in copied])
    known = _prod([out[i] for i, d in enumerate(shape) if i not in copied and d != -1])
    if -1 in shape:
        if total >= 0 and known >= 0:
            if known == 0 or total % known:
                raise ValueError(f"reshape: cannot reshape a tensor of shape {list(in_shape)} ({total} elements) "
                                 f"into shape {show(shape)}")
            out[list(shape).index(-1)] = total // known
    elif total >= 0 and known >= 0 and known != total:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {list(in_shape)} into shape {show(shape)} "
                         f"(the element counts differ: {total} vs {known})")
    return tuple(out)


def _reshape_kernel(x, shape_tensors=None, shape=()):
    if shape_tensors:
        shape = fill_dims(shape, shape_tensors, "reshape")
    return x.reshape(_resolve_shape(x.shape, shape))


def_op("reshape", ["X", "ShapeTensor*"], ["Out"], attrs={"shape": []}, kernel=_reshape_kernel,
       infer=lambda x, st=None, shape=(): Meta(_resolve_shape(x.shape, shape), x.dtype),
       grad=lambda ctx: [apply("reshape_as", ctx.out_grads[0], ctx.inputs[0]), no_grads(ctx.inputs, 1)],
       onnx="reshape", api=["reshape"], methods=["reshape"], grad_reads_no_values=True,
       doc="Reshape; 0 copies the input dim at that position, one -1 is inferred; None dims are "
           "the values of ShapeTensor (in order).")
def_op("reshape_as", ["X", "Target"], ["Out"], kernel=lambda x, t: x.reshape(t.shape),
       infer=lambda x, t: Meta(t.shape, x.dtype),
       grad=lambda ctx: [apply("reshape_as", ctx.out_grads[0], ctx.inputs[0]), no_grads(ctx.inputs, 1)],
       onnx="reshape_as",
       doc="Reshape X to Target's run-time shape (the gradient of every shape-only op).")


def _transpose_infer(x, perm=()):
    if sorted(perm) != list(range(len(x.shape))):
        raise ValueError(f"transpose: perm {list(perm)} is not a permutation of the {len(x.shape)} dims "
                         f"of a tensor of shape {list(x.shape)}")
    return Meta(tuple(x.shape[p] for p in perm), x.dtype)


def _transpose_kernel(x, perm=()):
    if len(perm) != x.ndim:
        raise ValueError(f"transpose: perm {list(perm)} does not match a tensor of shape {list(x.shape)}")
    return np.transpose(x, perm)


def_op("transpose", ["X"], ["Out"], attrs={"perm": []}, kernel=_transpose_kernel, infer=_transpose_infer,
       grad=lambda ctx: [apply("transpose", ctx.out_grads[0],
                               perm=[int(i) for i in np.argsort(ctx.attrs["perm"])])],
       onnx="transpose", api=["transpose"], methods=["transpose"], grad_reads_no_values=True)


def _squeeze_axes(shape, axis):
    if not axis:
        return [i for i, d in enumerate(shape) if d == 1]
    axes = {_norm_axis(a, len(shape), "squeeze") for a in axis}
    return [i for i in sorted(axes) if shape[i] in (1, -1)]


def _squeeze_kernel(x, axis=()):
    return x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in _squeeze_axes(x.shape, axis)))


def _squeeze_infer(x, axis=()):
    drop = _squeeze_axes(x.shape, axis)
    return Meta(tuple(d for i, d in enumerate(x.shape) if i not in drop), x.dtype)


def _unsqueeze_shape(shape, axis):
    cur = list(shape)
    for a in axis:
        n = len(cur) + 1
        if not -n <= a < n:
            raise ValueError(f"unsqueeze: axis {a} is out of range for a result of rank {n}")
        cur.insert(a % n, 1)
    return tuple(cur)


def _flatten_shape(shape, start_axis, stop_axis):
    if not shape:
        return (1,)
    s = _norm_axis(start_axis, len(shape), "flatten")
    e = _norm_axis(stop_axis, len(shape), "flatten")
    if s > e:
        raise ValueError(f"flatten: start_axis {start_axis} is after stop_axis {stop_axis}")
    return tuple(shape[:s]) + (_prod(shape[s:e + 1]),) + tuple(shape[e + 1:])


_reshape_back = lambda ctx: [apply("reshape_as", ctx.out_grads[0], ctx.inputs[0])]  # noqa: E731
def_op("squeeze", ["X"], ["Out"], attrs={"axis": []}, kernel=_squeeze_kernel, infer=_squeeze_infer,
       grad=_reshape_back, onnx="squeeze", api=["squeeze"], methods=["squeeze"], grad_reads_no_values=True,
       doc="Drop size-1 dims (all of them, or those in axis that are 1).")
def_op("unsqueeze", ["X"], ["Out"], attrs={"axis": []},
       kernel=lambda x, axis=(): x.reshape(_unsqueeze_shape(x.shape, axis)),
       infer=lambda x, axis=(): Meta(_unsqueeze_shape(x.shape, axis), x.dtype), grad=_reshape_back,
       onnx="unsqueeze", api=["unsqueeze"], methods=["unsqueeze"], grad_reads_no_values=True)
def_op("flatten", ["X"], ["Out"], attrs={"start_axis": 0, "stop_axis": -1},
       kernel=lambda x, start_axis=0, stop_axis=-1: x.reshape(_flatten_shape(x.shape, start_axis, stop_axis)),
       infer=lambda x, start_axis=0, stop_axis=-1: Meta(_flatten_shape(x.shape, start_axis, stop_axis), x.dtype),
       grad=_reshape_back, onnx="flatten", api=["flatten"], functional=["flatten"], methods=["flatten"],
       grad_reads_no_values=True)


# -- concat / stack / split: in ``join_split.py``, imported here so the ops register in this order --
from .join_split import chunk, concat, split, stack, unstack  # noqa: E402,F401  (public here too)


# -- gather / index_add ---------------------------------------------------------------------------
def _gather_infer(x, index, axis=0):
    a = _norm_axis(axis, len(x.shape), "gather")
    return Meta(tuple(x.shape[:a]) + tuple(index.shape) + tuple(x.shape[a + 1:]), x.dtype)


def _gather_kernel(x, index, axis=0):
    n = x.shape[axis]
    if index.size and (index.max() >= n or index.min() < -n):
        raise ValueError(f"gather: index values must be in [-{n}, {n}) for axis {axis} of shape "
                         f"{list(x.shape)}, got min {index.min()} max {index.max()}")
    return np.take(x, index, axis=axis)


def _index_add_kernel(x, index, updates, axis=0):
    out = x.copy()
    np.add.at(out, (slice(None),) * (axis % x.ndim) + (index,), updates)
    return out


def_op("gather", ["X", "Index"], ["Out"], attrs={"axis": 0}, kernel=_gather_kernel, infer=_gather_infer,
       grad=lambda ctx: [apply("index_add", apply("fill_any_like", ctx.inputs[0], value=0.0,
                                                  dtype=str(ctx.inputs[0].dtype)),
                               ctx.inputs[1], ctx.out_grads[0], axis=ctx.attrs["axis"]), None],
       onnx="gather", api=["gather"], methods=["gather"])
def_op("index_add", ["X", "Index", "Updates"], ["Out"], attrs={"axis": 0}, kernel=_index_add_kernel,
       infer=lambda x, i, u, axis=0: Meta(x.shape, x.dtype),
       grad=lambda ctx: [ctx.out_grads[0], None,
                         apply("gather", ctx.out_grads[0], ctx.inputs[1], axis=ctx.attrs["axis"])],
       onnx="scatter_add", api=["index_add"], methods=["index_add"],
       doc="x with updates added at index along axis (repeated indices accumulate): gather's gradient.")


# -- shape ------------------------------------------------------------------------------------------------
def_op("shape", ["X"], ["Out"], kernel=lambda x: np.asarray(x.shape, dtype=np.int64),
       infer=lambda x: Meta((len(x.shape),), "int64"), onnx="Shape", api=["shape"],
       doc="The run-time shape as a 1-D int64 tensor.")


# -- public functions -------------------------------------------------------------------------------------
def reshape(x: TensorLike, shape: ShapeLike, name: str | None = None) -> TensorLike:
    """``shape``: ints (0 copies the input dim, one -1 is inferred) and 1-element int Tensors, or a
    1-D int Tensor; tensor dims are read when the Program runs."""
    given, tensors = split_shape(shape, "reshape", like=x)
    dims, tensors = copied_dims(x, given, tensors)
    try:
        return apply("reshape", x, *tensor_input(tensors), shape=dims)
    except ValueError as e:  # name the shape as given, not with its copied dims made 0
        if dims == given:
            raise
        raise ValueError(str(e).replace(show(dims), show(given))) from None


def transpose(x: TensorLike, perm: Sequence[int], name: str | None = None) -> TensorLike:
    """``x`` with its dims permuted by ``perm`` (negative entries count from the end, as Paddle's)."""
    perm = _int_list(perm, "transpose", "perm")
    n = len(x.shape)
    if all(-n <= p < 0 for p in perm if p < 0):  # out-of-range entries are left for the op to refuse
        perm = [p + n if p < 0 else p for p in perm]
    return apply("transpose", x, perm=perm)


def squeeze(x: TensorLike, axis: Axis | None = None, name: str | None = None) -> TensorLike:
    """``x`` without the size-1 dims listed in ``axis`` (every size-1 dim when None)."""
    axes = [] if axis is None else _int_list(axis, "squeeze")
    out = apply("squeeze", x, axis=axes)
    if isinstance(x, _rt.framework.Variable):
        if axes:
            _check_squeezed(x, axes, out)
        else:
            _check_kept(x, out)
    return out


def _check_kept(x, out):
    """``squeeze()`` of every size-1 dim keeps a dim of unknown size (None) in the Program, whose rank is
    fixed when it is built; eager drops it when it is 1, so the Program checks that it is not 1."""
    unknown = [i for i, d in enumerate(x.shape) if d < 0]
    if unknown:
        _assert_dims(x, unknown, "not_equal", (
            f"squeeze(): dim(s) {unknown} of the input have a size unknown when the Program is built (None in "
            f"the InputSpec), kept (the result has shape {list(out.shape)}); at run time one is 1, which eager "
            "would drop: name the dims to squeeze with squeeze(axis=...)"))


def _assert_dims(x, dims, compare, message):
    """An `assert` op: every dim of ``dims`` of ``x`` is 1 (``compare`` "equal") or is not (``"not_equal"``)
    when the Program runs, else ValueError with ``message``."""
    sizes = apply("gather", apply("shape", x), _rt.to_tensor(np.asarray(dims, "int64")))
    ok = apply("reduce_all", apply(compare, sizes, _rt.to_tensor(np.ones(len(dims), "int64"))))
    apply("assert", ok, [], error="ValueError", message=message)


def _check_squeezed(x, axes, out):
    """A named dim of unknown size (None) is taken as 1 while the Program is built (Paddle's rule:
    the result's rank is fixed then); eager keeps a dim of another size, so the Program checks that
    it is 1 when it runs rather than go on with a shape (``out.shape[0]``, ``len(out.shape)``) that
    is not the value's."""
    rank = len(x.shape)
    unknown = sorted({a % rank for a in axes if -rank <= a < rank and x.shape[a % rank] < 0})
    if unknown:
        _assert_dims(x, unknown, "equal", (
            f"squeeze(axis={list(axes)}): dim(s) {unknown} of the input have a size unknown when the Program is "
            f"built (None in the InputSpec), taken as 1 (the result has shape {list(out.shape)}); at run time "
            "one is not 1, which eager would keep: squeeze only a dim that is 1, or give it a fixed size"))


def unsqueeze(x: TensorLike, axis: Axis, name: str | None = None) -> TensorLike:
    """``x`` with a size-1 dim inserted at each position of ``axis`` (an int or a list)."""
    return apply("unsqueeze", x, axis=_int_list(axis, "unsqueeze"))


def flatten(x: TensorLike, start_axis: int = 0, stop_axis: int = -1, name: str | None = None) -> TensorLike:
    """Merge dims ``start_axis``..``stop_axis`` into one."""
    return apply("flatten", x, start_axis=int(start_axis), stop_axis=int(stop_axis))


def gather(x: TensorLike, index: TensorLike, axis: int | None = None, name: str | None = None) -> TensorLike:
    """Rows of ``x`` along ``axis`` (0 by default) picked by the int Tensor ``index``: 0-D or 1-D, or
    2-D of shape [N, 1], which Paddle reads as [N] (no extra dim in the result); other ranks raise."""
    nd = len(index.shape)
    if nd >= 2:
        if nd > 2 or index.shape[1] != 1:
            raise ValueError(f"gather: index must be 0-D, 1-D or 2-D of shape [N, 1], got shape "
                             f"{list(index.shape)}")
        index = reshape(index, [-1])
    return apply("gather", x, index, axis=0 if axis is None else int(axis))


def index_add(x: TensorLike, index: TensorLike, axis: int, value: TensorLike, alpha: float = 1,
              name: str | None = None) -> TensorLike:
    """``x`` with ``value``'s slices (times ``alpha``) added at the positions ``index`` along ``axis``."""
    if alpha != 1:
        value = _rt.multiply(value, alpha)
    return apply("index_add", x, index, value, axis=int(axis))


def shape(input: TensorLike) -> TensorLike:  # noqa: A002  (Paddle's argument name)
    """The shape of ``input`` as a 1-D int64 Tensor (run-time sizes in a static Program)."""
    return apply("shape", input)


def dims(x: TensorLike) -> list:
    """``x``'s shape as expand/reshape/broadcast_to take it: known dims as ints, each unknown one as a
    1-element int Tensor read when the Program runs (a -1 there would keep the input's own dim)."""
    return [d if d >= 0 else shape(x)[i] for i, d in enumerate(x.shape)]
