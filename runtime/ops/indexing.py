"""``x[key]`` and ``x[key] = v`` as ops.

A key is stored as a printable ``spec`` attr, one entry per key item::

    x[0, 1:3, None, ..., i]  ->  spec [["i", 0], ["s", 1, 3, None], ["n"], ["e"], ["t", 0]], Index* = [i]

Tensor indices (int or bool) are op *inputs*, so ``x[i]`` with an int Variable
works in a static Program.  The gradient scatters the output gradient back
with ``np.add.at`` (repeated indices accumulate).

Slice bounds that are tensors (``x[:, :x.shape[1] - 1]`` with a run-time dim) go to a ``slice``
op first, its bounds an input (``["t", k]`` in its ``slices`` attr); the rest of the key
(if any) is a ``getitem`` of that::

    x[0, :n]  ->  slice(X=x, Bounds=[n]) slices=[[1, None, ["t", 0], None]]  ->  getitem spec [["i", 0]]
"""
import numpy as np

from ..dispatch import apply
import runtime as _rt  # runtime.framework (Variable) loads after the op declarations: read at call time
from ..trace_state import _mode
from ..registry import GRAD_ONLY, Meta, def_op
from ..inplace import adopt
from ..tensor import TensorLike, write_back
from .common import as_tensor, cast, reduce_as
from .index_keys import parse_key, split_tensor_slices
from .shape_args import no_grads


def _key(spec, idx):
    out = []
    for item in spec:
        tag = item[0]
        if tag == "i":
            out.append(item[1])
        elif tag == "s":
            out.append(slice(item[1], item[2], item[3]))
        elif tag == "t":
            out.append(idx[item[1]])
        elif tag == "n":
            out.append(None)
        else:
            out.append(Ellipsis)
    return tuple(out)


def _keys(spec, idx):
    """The keys to apply one after the other for ``x[key]`` with Paddle's (and PyTorch's) meaning.

    numpy counts an int (or a 0-d int tensor) next to a tensor index as one more advanced index, so
    ``x[1, :, [0, 2]]`` moves the indexed axis first (shape [2, 4] for x of shape [3, 4, 5]); Paddle
    drops the int's axis first and indexes what is left ([4, 2]).  A key holding both is applied in
    two steps: the basic part (ints, slices, None, ...; every tensor as whole axes) then the tensors
    on that view (ints gone, None now a kept axis).  Both steps index a view, so writes go through."""
    key = _key(spec, idx)
    if not _may_mix(spec, idx):
        return (key,)
    scalar, other = [], False
    for item, k in zip(spec, key):
        s = item[0] == "i" or (item[0] == "t" and k.ndim == 0 and k.dtype != np.bool_)
        other = other or (item[0] == "t" and not s)
        scalar.append(s)
    if not other or not any(scalar):
        return (key,)
    basic, adv = [], []
    for item, k, s in zip(spec, key, scalar):
        if s:
            basic.append(int(k))
        elif item[0] == "t":
            basic.extend([slice(None)] * max(k.ndim if k.dtype == np.bool_ else 1, 1))
            adv.append(k)
        else:
            basic.append(k)
            adv.append(k if k is Ellipsis else slice(None))  # a slice's or None's axis, whole
    return tuple(basic), tuple(adv)


def _may_mix(spec, idx):
    """False for the common keys, which index in one numpy step: no tensor index, or no int (nor 0-d int
    tensor) beside the tensor indices."""
    if not idx:
        return False
    for item in spec:
        if item[0] == "i":
            return True
    if len(idx) == 1:
        return False
    for k in idx:
        if k.ndim == 0 and k.dtype != np.bool_:
            return True
    return False


def _index(x, spec, idx):
    if not _may_mix(spec, idx):
        return x[_key(spec, idx)]
    for k in _keys(spec, idx):
        x = x[k]
    return x


def _getitem_kernel(x, idx, spec=()):
    return _index(x, spec, idx)


def _dummy_index(m, sentinel, first_run):
    shape = [sentinel if d == -1 else d for d in m.shape]
    if m.dtype == "bool":
        return np.full(shape, first_run, dtype=bool)  # all vs none selected: the count differs
    return np.zeros(shape, dtype=np.int64)


def _getitem_infer(x, idx, spec=()):
    """Index zero-cost dummies twice, with two sizes for unknown dims: dims that differ are unknown."""
    ints = [abs(v) for item in spec for v in item[1:] if isinstance(v, int) and item[0] != "t"]
    base = (max(ints) if ints else 0) + 11
    shapes = []
    for sentinel, first in ((base, True), (base + 7, False)):
        dummy = np.broadcast_to(np.zeros((), np.int8), [sentinel if d == -1 else d for d in x.shape])
        try:
            shapes.append(_index(dummy, spec, [_dummy_index(m, sentinel, first) for m in idx]).shape)
        except IndexError as e:
            raise ValueError(f"cannot index a tensor of shape {list(x.shape)} with {_describe(spec)}: {e}") from None
    a, b = shapes
    if len(a) != len(b):
        raise ValueError(f"indexing a tensor of shape {list(x.shape)} with {_describe(spec)} gives a result "
                         "whose rank depends on unknown dims")
    known = [da if da == db else -1 for da, db in zip(a, b)]
    if -1 in x.shape:
        # Small sizes too: `x[-3:]` has 3 rows only when x has at least 3.
        for small in range(min(base, 40)):
            dummy = np.broadcast_to(np.zeros((), np.int8), [small if d == -1 else d for d in x.shape])
            try:
                got = _index(dummy, spec, [_dummy_index(m, small, True) for m in idx]).shape
            except IndexError:
                continue
            known = [k if len(got) == len(known) and g == k else -1 for k, g in zip(known, got)]
    return Meta(tuple(known), x.dtype)


def _describe(spec):
    parts = []
    for item in spec:
        tag = item[0]
        if tag == "i":
            parts.append(str(item[1]))
        elif tag == "s":
            parts.append(":".join("" if v is None else str(v) for v in item[1:3])
                         + ("" if item[3] is None else f":{item[3]}"))
        elif tag == "t":
            parts.append(f"<tensor {item[1]}>")
        elif tag == "n":
            parts.append("None")
        else:
            parts.append("...")
    return "[" + ", ".join(parts) + "]"


def _scatter_key(key):
    """The key without None entries, bool masks as their nonzero coordinates (for np.add.at); a 0-d
    mask (``x[True]``) indexes no axis of x, it only adds one, as None does (``x[False]`` selects nothing:
    the caller checks ``_selects_nothing`` first)."""
    out = []
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            out.extend(np.nonzero(k) if k.ndim else ())
        elif k is not None:
            out.append(k)
    return tuple(out)


def _selects_nothing(key):
    return any(isinstance(k, np.ndarray) and k.dtype == np.bool_ and k.ndim == 0 and not k for k in key)


def _last_view(x, spec, idx):
    """(a view of x, the last key of ``_keys``): writing ``view[key]`` writes x's elements at the key."""
    keys = _keys(spec, idx)
    for k in keys[:-1]:
        x = x[k]
    return x, keys[-1]


def _getitem_grad_kernel(x, g, idx, spec=()):
    out = np.zeros(x.shape, dtype=g.dtype)
    view, key = _last_view(out, spec, idx)
    if _selects_nothing(key):
        return out
    key = _scatter_key(key)
    target = view[key].shape
    if any(item[0] == "t" for item in spec):
        np.add.at(view, key, g.reshape(target))
    else:  # basic indexing selects each element at most once
        view[key] += g.reshape(target)
    return out


def _set_value_kernel(x, value, idx, spec=()):
    out = x.copy()
    view, key = _last_view(out, spec, idx)
    try:
        view[key] = value
    except ValueError:
        # Paddle writes a value with extra leading 1-dims (a shape-[1] tensor into one element);
        # numpy refuses that for a 0-d target, so drop those dims (other mismatches still raise).
        ndim = np.ndim(view[key])
        if value.ndim <= ndim or any(d != 1 for d in value.shape[:value.ndim - ndim]):
            raise
        view[key] = value.reshape(value.shape[value.ndim - ndim:])
    return out


def _no_index_grads(idx):
    return [None] * len(idx)


def_op("getitem", ["X", "Index*"], ["Out"], attrs={"spec": []}, kernel=_getitem_kernel, infer=_getitem_infer,
       grad=lambda ctx: [apply("getitem_grad", ctx.inputs[0], ctx.out_grads[0], ctx.inputs[1], **ctx.attrs),
                         _no_index_grads(ctx.inputs[1])],
       onnx="getitem", grad_reads_no_values=True, doc="x[key]; spec encodes the key, Index* holds tensor indices.")
def_op("getitem_grad", ["X", "OutGrad", "Index*"], ["XGrad"], attrs={"spec": []}, kernel=_getitem_grad_kernel,
       infer=lambda x, g, idx, spec=(): Meta(x.shape, g.dtype),
       grad=lambda ctx: [None, apply("getitem", ctx.out_grads[0], ctx.inputs[2], **ctx.attrs),
                         _no_index_grads(ctx.inputs[2])],
       no_onnx=GRAD_ONLY, doc="Zeros shaped like X with OutGrad added at key.")


def _set_value_grad(ctx):
    x, value, idx = ctx.inputs
    g = ctx.out_grads[0]
    zero = apply("fill_any_like", value, value=0.0, dtype=str(g.dtype))
    gx = apply("set_value", g, zero, idx, **ctx.attrs)
    # a tensor index may name one element twice: the last write wins, so only it gets the gradient
    picks = any(item[0] == "t" and str(idx[item[1]].dtype) != "bool" for item in ctx.attrs["spec"])
    gv = apply("set_value_value_grad" if picks else "getitem", g, idx, **ctx.attrs)
    extra = len(value.shape) - len(gv.shape)
    if extra > 0:  # the write dropped leading 1-dims of the value (see _set_value_kernel)
        gv = apply("reshape_as", reduce_as(gv, _rt.squeeze(value, axis=list(range(extra)))), value)
    else:
        gv = reduce_as(gv, value)
    return [gx, gv, _no_index_grads(idx)]


def _set_value_value_grad_kernel(g, idx, spec=()):
    """``g[key]`` with zeros where a later position of the key writes the same element (x[[0, 0]] = v
    keeps v[1]: v[0] has no effect, so no gradient)."""
    g, key = _last_view(g, spec, idx)
    picked = g[key]
    order = np.arange(picked.size).reshape(picked.shape)
    last = np.full(g.shape, -1, dtype=np.int64)
    last[key] = order  # numpy assigns in order: each element keeps the last position writing it
    return np.where(last[key] == order, picked, np.zeros((), picked.dtype))


def_op("set_value_value_grad", ["OutGrad", "Index*"], ["ValueGrad"], attrs={"spec": []},
       kernel=_set_value_value_grad_kernel, infer=lambda g, idx, spec=(): _getitem_infer(g, idx, spec),
       no_onnx=GRAD_ONLY, doc="set_value's gradient for Value: OutGrad at key, zero where a later duplicate wins.")
def_op("set_value", ["X", "Value", "Index*"], ["Out"], attrs={"spec": []}, kernel=_set_value_kernel,
       infer=lambda x, v, idx, spec=(): Meta(x.shape, x.dtype), grad=_set_value_grad,
       onnx="set_value", doc="A copy of X with Value (broadcast) written at key.")


# -- slices with tensor bounds ------------------------------------------------------------------------
def _bound_value(v, bounds):
    if not isinstance(v, (list, tuple)):
        return v
    t = bounds[v[1]]
    if t.size != 1 or t.dtype.kind not in "iu":
        raise ValueError(f"slice bounds must be 1-element int tensors, got a {t.dtype} tensor of shape {list(t.shape)}")
    return int(t.reshape(()).item())


def _slice_key(ndim, slices, bounds):
    key = [slice(None)] * ndim
    for axis, *b in slices:
        key[axis] = slice(*[_bound_value(v, bounds) for v in b])
    return tuple(key)


def _slice_infer(x, bounds=None, slices=()):
    shape = list(x.shape)
    for axis, *b in slices:
        if shape[axis] >= 0 and not any(isinstance(v, (list, tuple)) for v in b):
            shape[axis] = len(range(*slice(*b).indices(shape[axis])))
        else:
            shape[axis] = -1
    return Meta(tuple(shape), x.dtype)


def _slice_grad_kernel(x, g, bounds=None, slices=()):
    out = np.zeros(x.shape, dtype=g.dtype)
    out[_slice_key(x.ndim, slices, bounds)] = g
    return out


def_op("slice", ["X", "Bounds*"], ["Out"], attrs={"slices": []},
       kernel=lambda x, bounds=None, slices=(): x[_slice_key(x.ndim, slices, bounds)], infer=_slice_infer,
       # Bounds is absent when every bound is an int (always so eagerly): *inputs[1:] passes it on only if given
       grad=lambda ctx: [apply("slice_grad", ctx.inputs[0], ctx.out_grads[0], *ctx.inputs[1:], **ctx.attrs),
                         no_grads(ctx.inputs, 1)],
       onnx="slice", api=["slice", "strided_slice"], module="runtime.ops.slicing", grad_reads_no_values=True,
       doc="Basic slicing; slices are [axis, start, stop, step], a bound [\"t\", k] is Bounds[k] at run time.")
def_op("slice_grad", ["X", "OutGrad", "Bounds*"], ["XGrad"], attrs={"slices": []}, kernel=_slice_grad_kernel,
       infer=lambda x, g, bounds=None, slices=(): Meta(x.shape, g.dtype),
       grad=lambda ctx: [None, apply("slice", ctx.out_grads[0], *ctx.inputs[2:], **ctx.attrs),
                         no_grads(ctx.inputs, 2)], no_onnx=GRAD_ONLY,
       doc="Zeros shaped like X with OutGrad written at the slices.")


# -- public ---------------------------------------------------------------------------------------------
def getitem(x, key):
    """``x[key]``: ints, slices, None, Ellipsis, int/bool Tensors and lists; slice bounds may be Tensors."""
    bounds, slices, key = split_tensor_slices(x, key)
    if slices:
        x = apply("slice", x, bounds, slices=slices)
        if all(isinstance(k, slice) and k == slice(None) for k in key):
            return x
    spec, idx = parse_key(key)
    return apply("getitem", x, idx, spec=spec)


def setitem(x, key, value):
    """``x[key] = value``, in place on an eager Tensor (recorded on the tape like Paddle's inplace ops).

    On a static Variable made by an op of the block being built, a `set_value` op whose output the
    Variable object takes over (``inplace.adopt``): every name and container holding it sees the
    write, ops already appended keep reading the old value. Anything else (a parameter, a fed
    input, a Variable of an enclosing block seen from a branch or loop body) is refused: the
    Program could not carry the write out to the other holders of that object."""
    if _mode.static or isinstance(x, _rt.framework.Variable):
        return _static_setitem(x, key, value)
    if isinstance(value, _rt.framework.Variable):
        raise TypeError("cannot assign a static Variable into an eager Tensor")

    write_back(x, lambda old: set_value(old, key, value),
               "a leaf Tensor that needs a gradient (stop_gradient=False) cannot be modified in place; assign "
               "to a copy (y = x * 1) instead")


def set_value(x, key, value):
    """The ``set_value`` op of ``x[key] = value``, out of place: ``value`` cast to x's dtype (a Python
    value made a tensor of it). Eager item writes, static ones and the converter's ``SetItem`` all
    build their write with it."""
    v = cast(value, x.dtype) if isinstance(value, TensorLike) else as_tensor(np.asarray(value, dtype=x.dtype.np))
    if split_tensor_slices(x, key)[1]:
        return _set_value_tensor_slices(x, key, v)
    spec, idx = parse_key(key)
    return apply("set_value", x, v, idx, spec=spec)


def _set_value_tensor_slices(x, key, v):
    """``x[key] = v`` whose slices have run-time bounds (``y[:n] = 0`` in converted code; only static
    Variables reach here, eager bounds are ints): the key read from x's flat positions (a ``slice``
    op takes those bounds) says where, and the value broadcast there is scattered into the flat x.
    The positions are distinct, so the scatter overwrites as the item write does, gradients included."""
    # x's shape as a list where at most one dim is unknown (the known dims stay known after the
    # reshapes, as an item write keeps them: `rt.unbind(y, axis=1)` after it needs dim 1), else read
    dims = list(x.shape)
    shape = [d if d >= 0 else -1 for d in dims] if sum(d < 0 for d in dims) <= 1 else _rt.shape(x)
    positions = _rt.reshape(_rt.arange(0, _rt.numel(x), dtype="int64"), shape)
    where = getitem(positions, key)
    v = _rt.broadcast_to(v, _rt.shape(where))
    out = _rt.scatter(_rt.reshape(x, [-1]), _rt.reshape(where, [-1]), _rt.reshape(v, [-1]), overwrite=True)
    return _rt.reshape(out, shape)


def _static_setitem(x, key, value):
    if not isinstance(x, _rt.framework.Variable):
        if not x.stop_gradient:  # as eagerly (a leaf needing a gradient is not written in place)
            raise TypeError("item assignment (x[key] = v) into a trainable parameter (or another tensor that "
                            "needs a gradient) while a Program is being built; write it outside the converted "
                            "function (under rt.no_grad)")
        # a layer's buffer (MoCo's queue, a pointer) or another tensor the Program binds: the new
        # value is assigned to its Variable, and the executor writes it back to the tensor after each
        # run, as the eager write changes it
        from .common import assign_to  # noqa: PLC0415
        return assign_to(set_value(_rt.dispatch.to_variable(x), key, value), x, "item assignment (x[key] = v)")
    out = set_value(x, key, value)
    if not adopt(x, out):
        what = ("a parameter" if x.persistable else "a fed input" if x.is_data
                else "a tensor made outside the branch or loop being built")
        raise TypeError(f"item assignment (x[key] = v) writes in place into {what}, which the Program cannot "
                        "carry out to every name holding it; write through a local name instead "
                        "(`y = ...; y[key] = v`), or build the new value (rt.where, rt.concat)")
