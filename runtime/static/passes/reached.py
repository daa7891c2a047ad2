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

A loop whose steps a gradient replays (and any loop run inside such a step) also reports the
steps it made: an entry ``(body idx, steps)`` in ``ran``, ``steps`` a tuple of ``(record,
repeats)``, each record what a step entered (a set of the same form), in order.  Exactly
those steps are walked back, each through the branches it took: a carry rebound under
``no_grad``, or by a branch that drops it, on a later step cuts what the earlier steps fed it, as
eagerly.

    x = f(x) if i % 2 == 0 else g(w)   # two steps: ran holds (body, (({true}, 1), ({false}, 1)))
    reached(ops, ["x_out"], names={"x", "w"}, ran=ran)   # -> {"w"}: step 1 dropped x
"""
from ...registry import get_op

_FLOATS = ("float16", "float32", "float64")


def reached(ops, outputs, names, ran=None):
    """The names of ``names`` that some of ``outputs`` depend on differentiably in a run that
    entered the sub-blocks whose indices are in ``ran`` (``ops``: the forward ops, in order).

    ``ran=None``: on any path (every branch, and every loop both run and skipped)."""
    live, blind = set(outputs), []
    _walk(ops, live, ran, blind)
    got = live & set(names)
    if blind:  # loops walked without their steps: they must not change the answer
        cut = set(outputs)
        _walk(ops, cut, ran, None)
        if cut & set(names) != got:
            where = ", ".join(f"the loop built at {op.origin}" if op.origin else "a loop" for op in blind)
            raise RuntimeError(
                f"cannot tell exactly which inputs get a gradient in this run: {where} ran without "
                f"recording its steps (no gradient passes it) and yet reaches them; please report this "
                f"program (the gradients could be zeros where eager gives None)")
    return got


def _entered(block, ran):
    return ran is None or block.idx in ran


def _float(block, name):
    v = block._find_var(name)
    # Unknown: assume it carries a gradient (never lose one).
    return v is None or (v.kind == "tensor" and str(v.dtype) in _FLOATS)


def _walk(ops, live, ran, blind):
    for op in reversed(ops):
        if op.type == "cond":
            a = op.attrs
            for block, outs in ((a["true_block"], a["true_outs"]), (a["false_block"], a["false_outs"])):
                if _entered(block, ran):
                    wanted = {bo for o, bo in zip(op.output("Out"), outs) if o in live}
                    if wanted:
                        live |= wanted
                        _walk(block.ops, live, ran, blind)
        elif op.type == "while":
            _walk_while(op, live, ran, blind)
        else:
            opdef = get_op(op.type)
            if opdef.grad is None or not any(n in live and _float(op.block, n) for n in op.output_arg_names):
                continue
            live.update(n for n in op.input_arg_names if _float(op.block, n))
            for sub in op.sub_blocks():  # another op with a body: whatever it reads may matter
                _all_reads(sub, live)


def _walk_while(op, live, ran, blind):
    a = op.attrs
    outs, xs = op.output("Out"), op.input("X")
    body, carry_in, carry_out = a["sub_block"], a["carry_in"], a["carry_out"]
    if ran is not None:
        if body.idx not in ran:  # zero iterations: the loop returns its start values
            live.update(x for o, x in zip(outs, xs) if o in live)
            return
        runs = [e[1] for e in ran if type(e) is tuple and e[0] == body.idx]
        if runs:  # the steps each run of the loop made: walk exactly those back
            start = tuple(o in live for o in outs)
            for steps in runs:
                _walk_steps(op, start, steps, live, blind)
            return
        # Entered without a record: a loop no gradient passes (its compiled form cannot count).
        # ``reached`` walks again with such loops passing nothing and checks the answer is the same.
        if blind is None:
            return
        if any(o in live for o in outs):
            blind.append(op)
    else:
        live.update(x for o, x in zip(outs, xs) if o in live)  # any path: maybe zero iterations
    live.update(co for o, co in zip(outs, carry_out) if o in live)
    while True:  # a carry read by the next iteration makes the previous iteration's value matter
        size = len(live)
        _walk(body.ops, live, ran, blind)
        live.update(co for ci, co in zip(carry_in, carry_out) if ci in live)
        if len(live) == size:
            break
    live.update(x for ci, x in zip(carry_in, xs) if ci in live)


def _walk_steps(op, start, steps, live, blind):
    """The recorded steps (``((record, repeats), ...)``: what each step entered) walked back from
    the last.  A carry rebound under ``no_grad`` on a later step cuts what the earlier steps fed
    it (eagerly, the value after two steps of ``y = f(x); x = no_grad(g(y))`` no longer depends
    on the initial ``x``), and each step reaches through the branch it took, not the others'
    (two steps of ``x = f(x) if i == 0 else g(y)``: the initial ``x`` feeds nothing)."""
    a = op.attrs
    body, carry_in, carry_out = a["sub_block"], a["carry_in"], a["carry_out"]
    local = {n for o in body.ops for n in o.output_arg_names} | set(carry_in)
    back = {}  # (carries that matter after a step, its record) -> those that matter before it

    def step_back(state, rec):
        before = back.get((state, rec))
        if before is None:
            step = {co for co, c in zip(carry_out, state) if c}
            _walk(body.ops, step, rec, blind)
            live.update(n for n in step if n not in local)  # outer values and parameters the step read
            before = back[state, rec] = tuple(ci in step for ci in carry_in)
        return before

    state = tuple(start)
    for rec, repeats in reversed(steps):
        seen, trail = {}, []  # the states repeat with a short period: skip whole periods
        for k in range(repeats):
            if not any(state):  # nothing the earlier steps computed matters any more
                break
            if state in seen:
                first = seen[state]
                state = trail[first + (repeats - k) % (k - first)]
                break
            seen[state] = k
            trail.append(state)
            state = step_back(state, rec)
    live.update(x for x, c in zip(op.input("X"), state) if c)


def _all_reads(block, live):
    for op in block.ops:
        live.update(op.input_arg_names)
        for sub in op.sub_blocks():
            _all_reads(sub, live)
