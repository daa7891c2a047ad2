"""Liveness: which ops a set of outputs needs, and which values flow into a segment.

One backward walk serves the executor (ops to compile), dead-code elimination,
``prune`` and the split of a forward+backward Program into two segments.  For::

    t = matmul(X=x, Y=w)        # kept: y needs t
    u = exp(X=x)                # dropped: nothing reads u
    y = relu(X=t)               # kept: y is an output
    () = print(X=y)             # kept: must_keep (an observable effect)

``live_ops(block, ops, ['y'])`` is the matmul, relu and print ops, and ``live_in``
is ``{'x', 'w'}``.
"""
from .defuse import op_reads
from .effects import is_persistable, must_keep, persistables_written


def analyze(block, ops, output_names, keep=must_keep, stop=(), nested=False):
    """(ops needed for ``output_names`` in order, names they need from before ``ops``).

    ``keep(block, op)`` marks ops kept regardless of their outputs (default: effects
    and randomness; pass None to keep only what outputs need).  Names in ``stop``
    are given (feeds): ops defining them are not needed for them.  ``nested``
    counts names sub-blocks read from outside as reads of their op.
    """
    stop = set(stop)
    needed = set(output_names) - stop
    kept = []
    for op in reversed(ops):
        outs = op.output_arg_names
        if not needed.isdisjoint(outs) or (keep is not None and keep(block, op)) or \
                (nested and _writes_needed_state(op, needed)):
            kept.append(op)
            needed.difference_update(outs)
            needed.update(n for n in (op_reads(op) if nested else op.input_arg_names) if n not in stop)
    kept.reverse()
    return kept, needed


def _writes_needed_state(op, needed):
    """Whether a branch or loop op's sub-blocks write persistable state an op after it reads (a
    buffer's `ema.add_(v)` in a loop body: the op lists no such output, and ``prune`` without this
    dropped the loop from a saved model, whose read then saw the value from before it). The state
    stays needed from before too: the loop may run zero times."""
    subs = op.sub_blocks()
    return bool(subs) and any(not needed.isdisjoint(persistables_written(sub)) for sub in subs)


def live_ops(block, ops, output_names, keep=must_keep):
    """The ops of ``ops`` that ``output_names`` depend on, plus the ops ``keep`` marks."""
    return analyze(block, ops, output_names, keep)[0]


def live_io(block, ops, output_names, keep=must_keep):
    """``live_ops`` as ``{id(op): (input names, output names)}`` of the ops kept, in order: the
    compiler's analyses all read these lists, which each ``op.*_arg_names`` call builds anew."""
    needed = set(output_names)
    kept = []
    for op in reversed(ops):
        outs = op.output_arg_names
        if not needed.isdisjoint(outs) or (keep is not None and keep(block, op)):
            ins = op.input_arg_names
            kept.append((op, ins, outs))
            needed.difference_update(outs)
            needed.update(ins)
    return {id(op): (op, ins, outs) for op, ins, outs in reversed(kept)}


def op_io(ops):
    """``{id(op): (op, input names, output names)}`` for ``ops``, in order (see ``live_io``)."""
    return {id(op): (op, op.input_arg_names, op.output_arg_names) for op in ops}


def segment_inputs(block, output_names, op_range=None, persistables=False):
    """Names ``block.ops[op_range]`` must be given to produce ``output_names``.

    Ordered by first read; persistable names only with ``persistables``.  For a
    backward segment these are the forward values it reads (the forward segment
    is asked to return exactly these, so a later forward cannot change them).
    """
    def wanted(n):
        return persistables or not is_persistable(block, n)

    ops = block.ops if op_range is None else block.ops[op_range[0]:op_range[1]]
    defined, need = set(), []
    for op in live_ops(block, ops, output_names):
        for n in op.input_arg_names:
            if n not in defined and wanted(n) and n not in need:
                need.append(n)
        defined.update(op.output_arg_names)
    need.extend(n for n in output_names if n not in defined and n not in need and wanted(n))
    return need


def last_uses(ops, io=None):
    """name -> index in ``ops`` of the last op reading it (where its value may be freed).

    ``io``: ``op_io(ops)`` (or a map holding it), if the caller has it."""
    last = {}
    for i, op in enumerate(ops):
        for n in (io[id(op)][1] if io is not None else op.input_arg_names):
            last[n] = i
    return last
