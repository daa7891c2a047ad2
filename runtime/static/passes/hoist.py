"""Loop-invariant ops of a compiled while body, run once before the loop (feature ``hoist_invariants``).

In ``while i < n: h = tanh(h @ w.T + b * 2)`` the body computes ``w.T`` and
``b * 2`` at every step, though they read only values the loop never changes.
The plan runs them once, under ``if pred_:`` so a loop that makes no step runs
none of them (as eagerly), and the body reads their results::

    if pred_:
        v_transpose_0 = v_w.transpose((1, 0))
        v_multiply_0 = _k1_multiply(v_b, _c0)
    while pred_:
        ...

An op is invariant when it is pure (no side effect, no random draw), is not
control flow, and reads only the loop's outer values, constants, parameters the
loop does not write, and other invariant results.  Its results stay alive for
the whole loop: buffer reuse and freeing never touch them.  An invariant op that
fails raises before the first step's other ops run: the same error, one op
earlier than the step's order would have it.
"""
from ...registry import get_op
from .effects import writes_persistable
from .features import enabled
from .liveness import op_io


def loop_invariants(block, body, outer, written, keep_in_loop=(), io=None):
    """The ops of ``body`` (a compiled while body) to run once before the loop, in order.

    ``outer``: names bound before the loop (outer values, constants, parameters read before
    it; carries are not: the loop rebinds them); ``written``: persistable vars the body writes (then nothing moves:
    the body reads that state again at every step); ``keep_in_loop``: names whose producing op
    stays in the loop (the inputs, which the loop rebinds, and the predicate); ``io``:
    ``liveness.op_io(body)`` (or a map holding it), if the caller has it.
    """
    if not enabled("hoist_invariants") or written:
        return []
    if io is None:
        io = op_io(body)
    writes = {}
    for op in body:
        for n in io[id(op)][2]:
            writes[n] = writes.get(n, 0) + 1
    # a name some op rebinds is not the same at every step; a hoisted result must be its one binding
    fixed, hoisted = {n for n in outer if n not in writes}, []
    for op in body:
        _, ins, outs = io[id(op)]
        opdef = get_op(op.type)
        if (opdef.pure and opdef.build_kernel is None and not writes_persistable(block, op)
                and outs
                and all(writes[n] == 1 and n not in keep_in_loop for n in outs)
                and all(n in fixed for n in ins)):
            hoisted.append(op)
            fixed.update(outs)
    return hoisted
