"""Paddle 2.x indexing and contraction ops with their own kernels: einsum, gather_nd, scatter_nd_add,
scatter, put_along_axis (assign), diagonal.

Each gradient is built from these ops and the registered ones (gather_nd's is a scatter_nd_add, the
scatters' are gathers), so it works on eager Tensors and static Variables alike.
"""
import string

import numpy as np

from ..dispatch import apply
from . import put_reduce, second_order
from ..registry import GRAD_ONLY, Meta, def_op
from .broadcast import expand
from .common import as_tensor
from .indexing import getitem
from .shape import dims, reshape, unsqueeze
from .sort import put_along_axis_add
from ..hints import TensorLike


def _cells(index):
    """The leading-index tuple of an ``[..., k]`` index array (numpy advanced indexing)."""
    return tuple(np.moveaxis(index, -1, 0))


def _nd_check(x, index, what):
    k = index.shape[-1]
    if k > x.ndim:
        raise ValueError(f"{what}: index's last dim ({k}) must be at most the rank of x ({x.ndim}), "
                         f"got x shape {list(x.shape)} and index shape {list(index.shape)}")
    return k


# -- gather_nd / scatter_nd_add -----------------------------------------------------------------------
def _gather_nd_kernel(x, index):
    k = _nd_check(x, index, "gather_nd")
    if k == 0:
        return np.broadcast_to(x, index.shape[:-1] + x.shape).copy()
    return x[_cells(index)]


def _scatter_nd_add_kernel(x, index, updates):
    if _nd_check(x, index, "scatter_nd_add") == 0:  # every update goes to the whole of x
        return x + np.sum(updates.reshape((-1,) + x.shape), axis=0, dtype=x.dtype)
    out = x.copy()
    np.add.at(out, _cells(index), updates)
    return out


def_op("gather_nd", ["X", "Index"], ["Out"], kernel=_gather_nd_kernel,
       infer=lambda x, index: Meta(tuple(index.shape[:-1]) + tuple(x.shape[index.shape[-1]:]), x.dtype),
       grad=lambda ctx: [apply("scatter_nd_add", apply("fill_any_like", ctx.inputs[0], value=0.0,
                                                       dtype=str(ctx.inputs[0].dtype)),
                               ctx.inputs[1], ctx.out_grads[0]), None],
       onnx="GatherND", api=["gather_nd"], methods=["gather_nd"],
       doc="x at the index tuples of index's last dim: out shape index.shape[:-1] + x.shape[k:].")
def_op("scatter_nd_add", ["X", "Index", "Updates"], ["Out"], kernel=_scatter_nd_add_kernel,
       infer=lambda x, index, updates: Meta(x.shape, x.dtype),
       grad=lambda ctx: [ctx.out_grads[0], None, apply("gather_nd", ctx.out_grads[0], ctx.inputs[1])],
       onnx="scatter_nd_add", api=["scatter_nd_add"], methods=["scatter_nd_add"],
       doc="x with updates added at the index tuples (repeated indices accumulate).")


def gather_nd(x: TensorLike, index: TensorLike, name: str | None = None) -> TensorLike:
    """The slices of ``x`` at the index tuples in ``index``'s last dim (Paddle's gather_nd)."""
    return apply("gather_nd", x, index)


def scatter_nd_add(x: TensorLike, index: TensorLike, updates: TensorLike, name: str | None = None) -> TensorLike:
    """``x`` with ``updates`` added at the index tuples in ``index``'s last dim (repeats accumulate)."""
    return apply("scatter_nd_add", x, index, updates)


# -- scatter (rows along axis 0) -----------------------------------------------------------------------
def _scatter_kernel(x, index, updates, overwrite=True):
    index = index.reshape(-1)
    if updates.shape[:1] != index.shape or updates.shape[1:] != x.shape[1:]:
        raise ValueError(f"scatter: updates must have shape {[index.size] + list(x.shape[1:])} "
                         f"(len(index) rows of x), got {list(updates.shape)}")
    out = x.copy()
    if overwrite:
        out[index] = updates  # repeated rows: the last update wins, as Paddle's CPU kernel
    else:
        out[index] = 0
        np.add.at(out, index, updates)
    return out


def _scatter_grad(ctx):
    x, index, updates = ctx.inputs
    g = ctx.out_grads[0]
    zeros = apply("fill_any_like", updates, value=0.0, dtype=str(g.dtype))
    flat = apply("reshape", index, shape=[-1])
    return [apply("scatter", g, index, zeros, overwrite=True), None, apply("gather", g, flat, axis=0)]


def_op("scatter", ["X", "Index", "Updates"], ["Out"], attrs={"overwrite": True}, kernel=_scatter_kernel,
       infer=lambda x, index, updates, overwrite=True: Meta(x.shape, x.dtype), grad=_scatter_grad,
       onnx="scatter",
       api=["scatter"], methods=["scatter"], doc="x with rows index replaced by (or summed from) updates.")


def scatter(x: TensorLike, index: TensorLike, updates: TensorLike, overwrite: bool = True,
            name: str | None = None) -> TensorLike:
    """``x`` with rows ``index`` set to ``updates`` (``overwrite``; repeats: the last wins), or zeroed and
    then summed from the updates sent to them (``overwrite=False``). A 0-d index names one row, its
    update a row of x's shape (Paddle takes it so)."""
    if len(index.shape) == 0:
        index = reshape(index, [1])
        if len(updates.shape) == len(x.shape) - 1:
            updates = unsqueeze(updates, 0)
    return apply("scatter", x, index, updates, overwrite=bool(overwrite))


# -- put_along_axis (assign) ---------------------------------------------------------------------------
def _put_kernel(x, index, updates, axis=-1):
    # the cells index names, not numpy's put_along_axis (which broadcasts a smaller index over x's other dims)
    return put_reduce._kernel(x, index, updates, axis=axis % x.ndim, reduce="assign")


def_op("put_along_axis", ["X", "Index", "Updates"], ["Out"], attrs={"axis": -1}, kernel=_put_kernel,
       infer=lambda x, i, u, axis=-1: Meta(x.shape, x.dtype),
       # only the last write to a cell gets its gradient, as in Paddle
       grad=lambda ctx: (lambda gx, gu: [gx, None, gu])(*apply(
           "put_along_axis_reduce_grad", *ctx.inputs, ctx.outputs[0], ctx.out_grads[0],
           axis=ctx.attrs["axis"], reduce="assign", include_self=True)),
       onnx="put_along_axis", api=["put_along_axis"], methods=["put_along_axis"],
       doc="x with values written at indices along axis.")


_REDUCE_NAMES = {"multiply": "mul"}


def broadcast_along(x, like, ax):
    """``x`` expanded to ``like``'s dims other than ``ax`` where ``x`` has 1 there (Paddle's
    ``broadcast=True`` of take/put_along_axis). A dim ``like`` leaves unknown (-1) is read from it when
    the Program runs: ``expand``'s own -1 would keep x's 1."""
    if x.ndim != like.ndim:
        return x
    shape, grow, target = [], False, dims(like)
    for d, (a, i) in enumerate(zip(like.shape, x.shape)):
        if d == ax or a == i or i != 1:
            shape.append(-1)  # keep x's dim (a mismatch left is the op's own shape error)
            continue
        grow = True
        shape.append(target[d])
    return expand(x, shape) if grow else x


def put_along_axis(arr: TensorLike, indices: TensorLike, values: float | TensorLike, axis: int,
                   reduce: str = "assign", include_self: bool = True, broadcast: bool = True) -> TensorLike:
    """``arr`` with ``values`` written (``reduce="assign"``) or reduced (``"add"``, ``"mul"``/``"multiply"``,
    ``"mean"``, ``"amin"``, ``"amax"``; without ``arr``'s own values when not ``include_self``) at ``indices``
    along ``axis``; with ``broadcast`` the indices are broadcast over ``arr``'s other dims and the values to
    the indices."""
    red = _REDUCE_NAMES.get(reduce, reduce)
    if red not in put_reduce.REDUCES:
        raise ValueError(f"put_along_axis: can not support reduce: {reduce!r}, only 'add', 'assign', 'mul', "
                         "'multiply', 'mean', 'amin' and 'amax'")
    ax = int(axis) % arr.ndim
    if broadcast:
        indices = broadcast_along(indices, arr, ax)
    values = as_tensor(values, arr.dtype)
    if not broadcast and values.ndim == indices.ndim and any(v > i >= 0 for v, i in zip(values.shape, indices.shape)):
        # larger values: Paddle reads the leading block of the index's shape
        values = getitem(values, tuple(slice(0, i) if v > i >= 0 else slice(None)
                                       for v, i in zip(values.shape, indices.shape)))
    if list(values.shape) != list(indices.shape):
        # an unknown dim of the index is read from it when the Program runs (expand's -1 would keep
        # a dim of values, and there is none where values has fewer dims)
        values = expand(values, dims(indices))
    if red == "add" and include_self:
        return put_along_axis_add(arr, indices, values, ax)
    if red == "assign":  # Paddle's assign ignores include_self
        return apply("put_along_axis", arr, indices, values, axis=ax)
    return apply("put_along_axis_reduce", arr, indices, values, axis=ax, reduce=red, include_self=bool(include_self))


# -- diagonal -----------------------------------------------------------------------------------------
def _diag_axes(ndim, axis1, axis2):
    a1, a2 = axis1 % ndim, axis2 % ndim
    if a1 == a2:
        raise ValueError(f"diagonal: axis1 and axis2 must differ, got {axis1} and {axis2} for rank {ndim}")
    return a1, a2


def _diag_len(n, m, offset):
    if n < 0 or m < 0:
        return -1
    return max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))


def _diagonal_infer(x, offset=0, axis1=0, axis2=1):
    a1, a2 = _diag_axes(len(x.shape), axis1, axis2)
    rest = [d for i, d in enumerate(x.shape) if i not in (a1, a2)]
    return Meta(rest + [_diag_len(x.shape[a1], x.shape[a2], offset)], x.dtype)


def _diagonal_grad_kernel(x, g, offset=0, axis1=0, axis2=1):
    a1, a2 = _diag_axes(x.ndim, axis1, axis2)
    out = np.zeros(x.shape, g.dtype)
    view = np.moveaxis(out, (a1, a2), (-2, -1))  # a writable view
    n = g.shape[-1]
    view[..., np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)] = g
    return out


_DIAG_ATTRS = {"offset": 0, "axis1": 0, "axis2": 1}
def_op("diagonal", ["X"], ["Out"], attrs=_DIAG_ATTRS,
       kernel=lambda x, offset=0, axis1=0, axis2=1: np.diagonal(x, offset, *_diag_axes(x.ndim, axis1, axis2)).copy(),
       infer=_diagonal_infer, grad=lambda ctx: [apply("diagonal_grad", ctx.inputs[0], ctx.out_grads[0], **ctx.attrs)],
       onnx="diagonal", api=["diagonal"], methods=["diagonal"],
       doc="The diagonal of the (axis1, axis2) planes at offset, as a new last dim.")
def_op("diagonal_grad", ["X", "OutGrad"], ["XGrad"], attrs=_DIAG_ATTRS, kernel=_diagonal_grad_kernel,
       infer=lambda x, g, **a: Meta(x.shape, g.dtype), no_onnx=GRAD_ONLY, grad=second_order.diagonal_grad_grad)


def diagonal(x: TensorLike, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None) -> TensorLike:
    """The diagonals of ``x``'s (``axis1``, ``axis2``) planes at ``offset`` (above the main one when > 0)."""
    if x.ndim < 2:
        raise ValueError(f"diagonal: x must have rank >= 2, got shape {list(x.shape)}")
    return apply("diagonal", x, offset=int(offset), axis1=int(axis1), axis2=int(axis2))


# -- einsum -------------------------------------------------------------------------------------------
def _normalise(equation, ranks):
    """An explicit equation (``ij,jk->ik``) with ``...`` spelled out as letters the user did not use."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(ranks):
        raise ValueError(f"einsum: equation {equation!r} has {len(subs)} operands, got {len(ranks)} tensors")
    spare = [c for c in string.ascii_letters if c not in eq]
    n_ell = max([r - len(s.replace("...", "")) for s, r in zip(subs, ranks) if "..." in s] or [0])
    ell = "".join(spare[:n_ell])
    out = []
    for s, r in zip(subs, ranks):
        k = r - len(s.replace("...", ""))
        s = s.replace("...", ell[n_ell - k:] if k else "") if "..." in s else s
        if len(s) != r:
            raise ValueError(f"einsum: subscripts {s!r} name {len(s)} dims, but the operand has rank {r}")
        out.append(s)
    if arrow:
        rhs = rhs.replace("...", ell)
    else:  # implicit output: the broadcast dims, then the letters used once, sorted (numpy's rule)
        letters = "".join(out)
        rhs = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell))
    return ",".join(out) + "->" + rhs


def _einsum_infer(xs, equation=""):
    lhs, rhs = equation.split("->")
    size = {}
    for s, x in zip(lhs.split(","), xs):
        for c, d in zip(s, x.shape):
            have = size.get(c, 1)
            if d not in (1, -1) and have not in (1, -1) and d != have:
                raise ValueError(f"einsum {equation!r}: subscript '{c}' has sizes {have} and {d} "
                                 f"(operand shapes {[list(x.shape) for x in xs]})")
            size[c] = d if have in (1, -1) and d != 1 else size.get(c, d)
    return Meta([size[c] for c in rhs], xs[0].dtype)


def _on_diagonal(gu, u, s, x, used, seen):
    """The gradient of an operand with repeated subscripts (``ii``): ``gu`` (over the distinct letters ``u``)
    placed on the diagonal, one identity factor per repeat (``ij,iI->iIj``). The repeated letters' dims
    size the identities and must be known; another dim may be unknown (a batch ``bii``) when ``gu``
    already has it (``seen``: a letter of the output or of another operand), as ``expand`` keeps a -1."""
    spare = [c for c in string.ascii_letters if c not in used]
    if any(d < 0 and (s.count(c) > 1 or c not in seen) for c, d in zip(s, x.shape)):
        raise NotImplementedError(f"einsum gradient: repeated subscripts ({s!r}) need known dims, got {list(x.shape)}")
    target, eyes, first = "", [], set()
    for k, c in enumerate(s):
        if c in first:
            target += spare[len(eyes)]
            eyes.append((c + spare[len(eyes)], x.shape[k]))
        else:
            first.add(c)
            target += c
    gu = apply("expand", gu, shape=[x.shape[s.index(c)] for c in u])
    ids = [apply("eye", num_rows=n, num_columns=n, dtype=str(gu.dtype)) for _, n in eyes]
    return apply("einsum", [gu] + ids, equation=",".join([u] + [e for e, _ in eyes]) + "->" + target)


def _einsum_grad(ctx):
    xs, g = ctx.inputs[0], ctx.out_grads[0]
    lhs, rhs = ctx.attrs["equation"].split("->")
    subs = lhs.split(",")
    grads = []
    for i, (s, x) in enumerate(zip(subs, xs)):
        others = [t for j, t in enumerate(subs) if j != i]
        seen = set(rhs + "".join(others))
        u = "".join(dict.fromkeys(s))  # the distinct letters, in order
        kept = "".join(c for c in u if c in seen)
        eq = ",".join([rhs] + others) + "->" + kept
        gi = apply("einsum", [g] + [t for j, t in enumerate(xs) if j != i], equation=eq)
        if kept != u:  # letters summed out of x alone: their gradient is g broadcast back over them
            gi = apply("unsqueeze", gi, axis=[k for k, c in enumerate(u) if c not in seen])
        if u != s:
            grads.append(_on_diagonal(gi, u, s, x, lhs + rhs, seen))
            continue
        if kept == s and any(d < 0 and c in seen for c, d in zip(s, x.shape)):
            # a dim known only when the Program runs may be a 1 the others broadcast: summed back then
            grads.append(apply("reduce_as", gi, x))
            continue
        ones = [k for k, c in enumerate(s) if x.shape[k] == 1 and c in seen]
        if ones:  # ``...`` dims x broadcast (size 1 against n): summed back
            gi = apply("reduce_sum", gi, axis=ones, keepdim=True)
        grads.append(gi if kept == s and not ones else apply("expand_as", gi, x))
    return [grads]


def_op("einsum", ["Operands*"], ["Out"], attrs={"equation": ""},
       kernel=lambda xs, equation="": np.asarray(np.einsum(equation, *xs)).astype(xs[0].dtype, copy=False),
       infer=_einsum_infer, grad=_einsum_grad, onnx="einsum", api=["einsum"],
       doc="Einstein summation over an explicit equation (the public einsum spells out ... and ->).")


def einsum(equation: str, *operands: TensorLike) -> TensorLike:
    """Einstein summation (``einsum("ij,jk->ik", a, b)``), with ``...`` broadcast dims and an implicit output."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = list(operands)
    equation = _normalise(equation, [x.ndim for x in operands])
    _einsum_infer(operands, equation)  # sizes that disagree: said here, with the subscript, in both modes
    return apply("einsum", operands, equation=equation)
