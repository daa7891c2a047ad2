"""``rt.geometric`` (Paddle's ``paddle.geometric``): graph message passing as gathers of the source rows
and ``put_along_axis`` reductions into the destination rows, so gradients, the static form and every
backend come from those ops. A row no message reaches is 0 for every reduction, as in Paddle.

``segment_*`` reduce the rows of ``data`` by their (sorted) segment ids into ``max(id) + 1`` rows: a
size the ids decide, read from them when a converted function runs.

``reindex_graph`` renumbers sampled neighbourhoods: one op (no gradient; its node count depends on the
data), so a converted function serves any graph.
"""
import numpy as np

import runtime as _rt

from .dispatch import apply
from .hints import TensorLike
from .registry import Meta, def_op

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean", "segment_max", "segment_min",
           "reindex_graph"]

_REDUCE = {"sum": "add", "mean": "mean", "max": "amax", "min": "amin"}
_MESSAGE = {"add": _rt.add, "sub": _rt.subtract, "mul": _rt.multiply, "div": _rt.divide}


def _rows(n, like):
    """``n`` rows shaped like ``like``'s rows, zeros."""
    return _rt.zeros([n] + list(like.shape[1:]), dtype=like.dtype)


def _reduce_into(msgs, index, reduce_op, n, what):
    """``msgs`` reduced into ``n`` zero rows at the rows ``index`` (int, one per message)."""
    if reduce_op not in _REDUCE:
        raise ValueError(f"{what}: reduce_op must be one of {list(_REDUCE)}, got {reduce_op!r}")
    index = _rt.reshape(index, [-1] + [1] * (msgs.ndim - 1))
    out = _rows(n, msgs)
    if reduce_op in ("sum", "mean"):
        # include_self=False: only the messages count; a row without any keeps its 0
        return _rt.put_along_axis(out, index, msgs, 0, reduce=_REDUCE[reduce_op], include_self=reduce_op == "sum")
    # max/min from -inf/+inf rows (no message ties with a row's start); the rows no message reached
    # are 0 again. Paddle's gradient goes whole to every message equal to its row's result (tied ones
    # too, where put_along_axis would share it): added as the messages' zero difference under that mask
    start = _rt.full_like(out, float("-inf") if reduce_op == "max" else float("inf"))
    with _rt.no_grad():
        best = _rt.put_along_axis(start, index, msgs, 0, reduce=_REDUCE[reduce_op], include_self=False)
        reached = _rt.put_along_axis(_rt.zeros_like(out), index, _rt.ones_like(msgs), 0, reduce="add") > 0
        best = _rt.where(reached, best, _rt.zeros_like(best))
        won = _rt.cast(_rt.equal(msgs, _rt.gather(best, _rt.reshape(index, [-1]), axis=0)), msgs.dtype)
    return best + _rt.put_along_axis(out, index, (msgs - msgs.detach()) * won, 0, reduce="add")


def _out_rows(x, out_size):
    if out_size is None or (isinstance(out_size, int) and out_size <= 0):
        return x.shape[0] if x.shape[0] >= 0 else _rt.shape(x)[0:1]
    return out_size


def send_u_recv(x: TensorLike, src_index: TensorLike, dst_index: TensorLike, reduce_op: str = "sum",
                out_size: int | TensorLike | None = None, name: str | None = None) -> TensorLike:
    """Each edge sends ``x[src]`` to ``dst``; each node reduces what it receives (``reduce_op``: "sum",
    "mean", "max", "min") into ``out_size`` rows (``x``'s row count by default)."""
    msgs = _rt.gather(x, src_index, axis=0)
    return _reduce_into(msgs, dst_index, reduce_op, _out_rows(x, out_size), "send_u_recv")


def send_ue_recv(x: TensorLike, y: TensorLike, src_index: TensorLike, dst_index: TensorLike,
                 message_op: str = "add", reduce_op: str = "sum", out_size: int | TensorLike | None = None,
                 name: str | None = None) -> TensorLike:
    """``send_u_recv`` of the messages ``x[src] <message_op> y`` (``y``: one row per edge; "add", "sub",
    "mul" or "div")."""
    if message_op not in _MESSAGE:
        raise ValueError(f"send_ue_recv: message_op must be one of {list(_MESSAGE)}, got {message_op!r}")
    msgs = _MESSAGE[message_op](_rt.gather(x, src_index, axis=0), y)
    return _reduce_into(msgs, dst_index, reduce_op, _out_rows(x, out_size), "send_ue_recv")


def send_uv(x: TensorLike, y: TensorLike, src_index: TensorLike, dst_index: TensorLike, message_op: str = "add",
            name: str | None = None) -> TensorLike:
    """One message per edge: ``x[src] <message_op> y[dst]``."""
    if message_op not in _MESSAGE:
        raise ValueError(f"send_uv: message_op must be one of {list(_MESSAGE)}, got {message_op!r}")
    return _MESSAGE[message_op](_rt.gather(x, src_index, axis=0), _rt.gather(y, dst_index, axis=0))


def _segment(data, segment_ids, reduce_op, what):
    n = _rt.max(segment_ids) + 1
    n = int(n) if _rt.in_dynamic_mode() and not isinstance(n, _rt.static.Variable) else _rt.reshape(n, [1])
    return _reduce_into(data, segment_ids, reduce_op, n, what)


def segment_sum(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> TensorLike:
    """The sum of the rows of each segment (``max(segment_ids) + 1`` rows; an empty segment is 0)."""
    return _segment(data, segment_ids, "sum", "segment_sum")


def segment_mean(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> TensorLike:
    """The mean of the rows of each segment (an empty segment is 0)."""
    return _segment(data, segment_ids, "mean", "segment_mean")


def segment_max(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> TensorLike:
    """The largest row entries of each segment (an empty segment is 0)."""
    return _segment(data, segment_ids, "max", "segment_max")


def segment_min(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> TensorLike:
    """The smallest row entries of each segment (an empty segment is 0)."""
    return _segment(data, segment_ids, "min", "segment_min")


# -- reindex_graph: sampled neighbourhoods renumbered from 0 ------------------------------------------
def _reindex_kernel(x, neighbors, count):
    counts = np.asarray(count).reshape(-1).astype(np.int64)
    if counts.shape[0] != x.shape[0] or counts.sum() != neighbors.shape[0]:
        raise ValueError(f"reindex_graph: count {counts.tolist()} must give the number of neighbors of each of "
                         f"the {x.shape[0]} nodes of x, {neighbors.shape[0]} in all")
    ids = {}
    for v in x.tolist():  # x's nodes first, in order
        ids.setdefault(v, len(ids))
    for v in neighbors.tolist():  # then each new neighbor where it first appears
        ids.setdefault(v, len(ids))
    src = np.array([ids[v] for v in neighbors.tolist()], x.dtype)
    dst = np.repeat(np.arange(x.shape[0]), counts).astype(x.dtype)
    return src, dst, np.array(list(ids), x.dtype)


def_op("reindex_graph", ["X", "Neighbors", "Count"], ["ReindexSrc", "ReindexDst", "OutNodes"],
       kernel=_reindex_kernel,
       infer=lambda x, nb, c: (Meta([nb.shape[0]], x.dtype), Meta([nb.shape[0]], x.dtype), Meta([-1], x.dtype)),
       no_onnx="a data-dependent number of nodes; not lowered",
       doc="Sampled neighbourhoods renumbered from 0: edges as (src, dst) indices and the nodes they index.")


def reindex_graph(x: TensorLike, neighbors: TensorLike, count: TensorLike, value_buffer: TensorLike | None = None,
                  index_buffer: TensorLike | None = None, name: str | None = None):
    """``(reindex_src, reindex_dst, out_nodes)`` for the nodes ``x`` whose sampled ``neighbors`` come
    ``count[i]`` per node: ``out_nodes`` holds ``x`` then each new neighbor in order of appearance,
    ``reindex_src`` each neighbor's index there and ``reindex_dst`` its node's (the buffers, a GPU hash
    table's, are not needed)."""
    return tuple(apply("reindex_graph", x, neighbors, count))
