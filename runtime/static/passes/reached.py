"""Which inputs a run's outputs depend on differentiably, given which sub-blocks the run entered.

Eagerly, a tensor's ``.grad`` stays None unless the tape links it to the loss: some op
that ran, that has a gradient, read it on the way to the loss.  A Program's backward is
built once for every path, so an input read only on a path this run did not take (an
untaken branch at any depth, a loop body that ran zero times, a value a later branch
dropped) gets zeros there.  ``reached`` walks the forward ops back from the outputs
over the branches and bodies the run entered (``runtime.trace_state.run_recording_blocks``)
and returns the names a gradient reaches, so the caller can give the others None.

    ran = {idx of true_block}          # the run took the `if`
    reached(ops, ["out"], names={"w1", "w2"}, ran=ran)   # -> {"w1"}: w2 only feeds the else

A loop whose steps a gradient replays also reports how many steps each run made (entries
``(body idx, count)`` in ``ran``), and exactly that many steps are walked back: a carry rebound
under ``no_grad`` cuts what earlier steps fed it, as eagerly.  Inside a loop body both
branches of a `cond` may have run on different iterations; they both count (a gradient may then be zeros where eager has None only if every iteration's
use was dropped later, which the set of entered blocks cannot tell).
"""
from ...registry import get_op

_FLOATS = ("float16", "float32", "float64")


def reached(ops, outputs, names, ran=None):
    """The names of ``names`` that some of ``outputs`` depend on differentiably in a run that
    entered the sub-blocks whose indices are in ``ran`` (``ops``: the forward ops, in order).

    ``ran=None``: on any path (every branch, and every loop both run and skipped)."""
    live = set(outputs)
    _walk(ops, live, ran)
    return live & set(names)


def _entered(block, ran):
    return ran is None or block.idx in ran


def _float(block, name):
    v = block._find_var(name)
    # Unknown: assume it carries a gradient (never lose one).
    return v is None or (v.kind == "tensor" and str(v.dtype) in _FLOATS)


def _walk(ops, live, ran):
    for op in reversed(ops):
        if op.type == "cond":
            a = op.attrs
            for block, outs in ((a["true_block"], a["true_outs"]), (a["false_block"], a["false_outs"])):
                if _entered(block, ran):
                    wanted = {bo for o, bo in zip(op.output("Out"), outs) if o in live}
                    if wanted:
                        live |= wanted
                        _walk(block.ops, live, ran)
        elif op.type == "while":
            _walk_while(op, live, ran)
        else:
            opdef = get_op(op.type)
            if opdef.grad is None or not any(n in live and _float(op.block, n) for n in op.output_arg_names):
                continue
            live.update(n for n in op.input_arg_names if _float(op.block, n))
            for sub in op.sub_blocks():  # another op with a body: whatever it reads may matter
                _all_reads(sub, live)


def _walk_while(op, live, ran):
    a = op.attrs
    outs, xs = op.output("Out"), op.input("X")
    body, carry_in, carry_out = a["sub_block"], a["carry_in"], a["carry_out"]
    if ran is None or body.idx not in ran:  # zero iterations: the loop returns its start values
        live.update(x for o, x in zip(outs, xs) if o in live)
        if ran is not None:
            return
    counts = {e[1] for e in ran if type(e) is tuple and e[0] == body.idx} if ran is not None else ()
    if counts:  # how many steps each run of the loop made: walk exactly those steps back
        start = [o in live for o in outs]
        for count in counts:
            _walk_steps(op, start, count, live, ran)
        return
    live.update(co for o, co in zip(outs, carry_out) if o in live)
    while True:  # a carry read by the next iteration makes the previous iteration's value matter
        size = len(live)
        _walk(body.ops, live, ran)
        live.update(co for ci, co in zip(carry_in, carry_out) if ci in live)
        if len(live) == size:
            break
    live.update(x for ci, x in zip(carry_in, xs) if ci in live)


def _walk_steps(op, start, count, live, ran):
    """``count`` iterations walked back from the last: a carry rebound under ``no_grad`` on a later
    step cuts what the earlier steps fed it (eagerly, the value after two steps of
    ``y = f(x); x = no_grad(g(y))`` no longer depends on the initial ``x``)."""
    a = op.attrs
    body, carry_in, carry_out = a["sub_block"], a["carry_in"], a["carry_out"]
    local = {n for o in body.ops for n in o.output_arg_names} | set(carry_in)
    states = [tuple(start)]  # which carries matter after the last step, the one before, ...
    while len(states) <= count:
        if states[-1] in states[:-1]:  # a cycle: the earlier steps repeat it (and what it reads)
            first = states.index(states[-1])
            period = len(states) - 1 - first
            states.append(states[first + (count - first) % period])
            break
        step = {co for co, c in zip(carry_out, states[-1]) if c}
        _walk(body.ops, step, ran)
        live.update(n for n in step if n not in local)  # outer values and parameters the step read
        states.append(tuple(ci in step for ci in carry_in))
    live.update(x for x, c in zip(op.input("X"), states[-1]) if c)


def _all_reads(block, live):
    for op in block.ops:
        live.update(op.input_arg_names)
        for sub in op.sub_blocks():
            _all_reads(sub, live)
