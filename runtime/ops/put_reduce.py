"""put_along_axis with a reduction ('mul', 'mean', 'amin', 'amax'; 'add' and 'assign' without ``x``'s own
values) and the gradient of every mode, as Paddle 3.3 computes them: duplicate indices accumulate in index
order, an 'assign' keeps the last write (only it gets a gradient), 'mean' floor-divides ints, and ties of
'amin'/'amax' share the gradient equally."""
import numpy as np

from ..dispatch import apply
from ..registry import GRAD_ONLY, Meta, def_op

REDUCES = ("assign", "add", "mul", "mean", "amin", "amax")
_ATTRS = {"axis": -1, "reduce": "assign", "include_self": True}


def _cells(index, axis):
    """The full numpy index tuple of the cells ``index`` (one per entry) points at along ``axis``."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[axis] = index
    return tuple(grid)


def _extreme(dtype, reduce):
    if np.issubdtype(dtype, np.floating):
        return np.inf if reduce == "amin" else -np.inf
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    if info is None:
        return reduce == "amin"
    return info.max if reduce == "amin" else info.min


def _counts(x, cells):
    n = np.zeros(x.shape, np.int64)
    np.add.at(n, cells, 1)
    return n


def _winners(x, cells):
    """A mask over the updates: True for the last write to each cell (the one an 'assign' keeps)."""
    flat = np.ravel_multi_index(np.broadcast_arrays(*cells), x.shape).ravel()
    last = np.zeros(x.size, np.int64)
    last[flat] = np.arange(flat.size)  # numpy keeps the last of repeated fancy-index writes
    return (last[flat] == np.arange(flat.size)).reshape(np.broadcast_shapes(*[c.shape for c in cells]))


def _kernel(x, index, updates, axis=-1, reduce="assign", include_self=True):
    cells = _cells(index, axis)
    out = x.copy()
    if reduce == "assign":
        out[cells] = updates
        return out
    hit = _counts(x, cells)
    if not include_self:
        out[hit > 0] = {"add": 0, "mean": 0, "mul": 1}.get(reduce) if reduce in ("add", "mean", "mul") \
            else _extreme(x.dtype, reduce)
    ufunc = {"add": np.add, "mean": np.add, "mul": np.multiply, "amin": np.minimum, "amax": np.maximum}[reduce]
    ufunc.at(out, cells, updates)
    if reduce == "mean":
        n = hit + int(bool(include_self))
        at = hit > 0
        if np.issubdtype(x.dtype, np.integer):
            out[at] = out[at] // n[at]
        else:
            out[at] = out[at] / n[at].astype(x.dtype)
    return out


def _grad_kernel(x, index, updates, out, g, axis=-1, reduce="assign", include_self=True):
    cells = _cells(index, axis)
    hit = _counts(x, cells) > 0
    g_at = g[cells]
    own = include_self and reduce != "assign"
    if reduce in ("add", "assign"):
        gu = g_at * _winners(x, cells) if reduce == "assign" else g_at
        gx = g.copy()
    elif reduce == "mul":
        with np.errstate(divide="ignore", invalid="ignore"):
            gx, gu = g * out / x, g_at * out[cells] / updates
    elif reduce == "mean":
        n = (_counts(x, cells) + int(bool(include_self))).astype(g.dtype)
        gx, gu = np.where(hit, g / np.maximum(n, 1), g), g_at / n[cells]
    else:  # amin / amax: the gradient shared by all the values equal to the result, x's own counted
        ties = np.zeros(x.shape, g.dtype)  # even without include_self (then its share is lost), as in Paddle
        eq = updates == out[cells]
        np.add.at(ties, cells, eq.astype(g.dtype))
        mine = x == out
        ties += mine
        with np.errstate(divide="ignore", invalid="ignore"):
            gx = np.where(mine, g / ties, 0).astype(g.dtype)
            gu = np.where(eq, g_at / ties[cells], 0).astype(g.dtype)
    gx = np.where(hit, gx if own else 0, g).astype(g.dtype)
    return gx, np.asarray(gu, g.dtype)


def_op("put_along_axis_reduce", ["X", "Index", "Updates"], ["Out"], attrs=_ATTRS, kernel=_kernel,
       infer=lambda x, i, u, **a: Meta(x.shape, x.dtype),
       grad=lambda ctx: (lambda gx, gu: [gx, None, gu])(*apply(
           "put_along_axis_reduce_grad", *ctx.inputs, ctx.outputs[0], ctx.out_grads[0], **ctx.attrs)),
       no_onnx="ONNX ScatterElements has no mean reduction nor a form without x's own values",
       doc="x with updates reduced (add/mul/mean/amin/amax, with or without x's own values) at index along axis.")
def_op("put_along_axis_reduce_grad", ["X", "Index", "Updates", "Out", "OutGrad"], ["XGrad", "UpdatesGrad"],
       attrs=_ATTRS, kernel=_grad_kernel, no_onnx=GRAD_ONLY,
       infer=lambda x, i, u, o, g, **a: (Meta(x.shape, g.dtype), Meta(u.shape, g.dtype)))
