"""``prune(program, feeds, fetches)``: the part of a Program the fetches need, as a new Program.

Works on a clone of the Program object.  Liveness is walked backwards from the
fetches, stopping at the feeds, so backward and optimizer ops (which only write
gradients or update parameters after their last forward read) fall away::

    y = relu(X=matmul(x, w))                      y = relu(X=matmul(x, w))
    y@GRAD = fill_constant_like(X=y)      ->      (feeds: x; fetches: y)
    w@GRAD = matmul_grad(...)
    w = sgd(Param=w, Grad=w@GRAD)

A cond/while is kept whole with everything its sub-blocks read from outside;
sub-blocks no kept op reaches are dropped and the rest renumbered.  The run-time
checks of the global block (ops declared ``check``: ``assert``) stay too, with the
pure ops they need, when the feeds and parameters can compute them: a saved model
refuses the inputs the converted function refuses (a check that reads an input not
fed, or needs an op with effects the fetches do not need, is left out).  A cond's
'RngState' output (the generator state only a gradient's replay reads) is dropped
when no kept op reads it, so an inference Program is the plain one.
"""
from ...registry import get_op
from ..program_tools import clone
from .defuse import op_reads
from .effects import is_persistable, must_keep
from .liveness import analyze


def _check(gb, feeds, fetches, needed):
    for n in feeds + fetches:
        if n not in gb.vars:
            raise ValueError(f"prune: '{n}' is not a variable of the Program's global block")
    for n in sorted(needed):
        v = gb.vars.get(n)
        if v is None or v.persistable:
            continue
        if v.is_data:
            raise ValueError(f"prune: the fetches need input '{n}', which is not among the feeds {feeds}")
        raise ValueError(f"prune: the fetches need '{n}', which no op before them defines")


def _reachable_blocks(program):
    order, stack = [program.global_block()], [program.global_block()]
    seen = {0}
    while stack:
        for op in stack.pop().ops:
            for sub in op.sub_blocks():
                if sub.idx not in seen:
                    seen.add(sub.idx)
                    order.append(sub)
                    stack.append(sub)
    return sorted(order, key=lambda b: b.idx)


def _renumber(program, blocks):
    mapping = {b.idx: k for k, b in enumerate(blocks)}
    for b in blocks:
        b.parent_idx = -1 if b.idx == 0 else mapping[b.parent_idx]
    for b in blocks:
        b.idx = mapping[b.idx]
    program.blocks = blocks
    program._current = 0


def _drop_unread_rng_state(program):
    reads = {n for b in program.blocks for op in b.ops for n in op.input_arg_names}
    for b in program.blocks:
        for op in b.ops:
            rng = op.outputs.get("RngState") if op.type == "cond" else None
            if rng and not set(rng) & reads:
                del op.outputs["RngState"]


def _with_checks(gb, kept, feeds):
    """``kept`` plus the global block's checks that can run from ``feeds`` and the parameters, each
    with the ops it needs that are not kept already, provided those are pure (no effect, no draw,
    no persistable write: keeping the check must not change what the model computes or writes)."""
    keep = {id(op) for op in kept}
    ops = gb.ops
    for i, op in enumerate(ops):
        if id(op) in keep or not get_op(op.type).check:
            continue
        need, given = analyze(gb, ops[:i], op_reads(op), keep=None, stop=feeds, nested=True)
        if any(not is_persistable(gb, n) for n in given):
            continue  # reads an input the model is not fed (input_names_after_prune)
        extra = [o for o in need if id(o) not in keep]
        if any(must_keep(gb, o) for o in extra):
            continue
        keep.add(id(op))
        keep.update(id(o) for o in extra)
    return [op for op in ops if id(op) in keep]


def prune(program, feed_names, fetch_names, checks=True):
    """A new Program with only the global-block ops the fetches need, given the feeds.

    Feed vars become data vars of the result; bound eager tensors the result
    still reads stay bound (shared, not copied).  ``checks``: keep the run-time
    checks the feeds can compute (see the module docstring).
    """
    feeds, fetches = list(feed_names), list(fetch_names)
    gb = program.global_block()
    kept, needed = analyze(gb, gb.ops, fetches, keep=None, stop=feeds, nested=True)
    _check(gb, feeds, fetches, needed)
    if checks:
        kept = _with_checks(gb, kept, feeds)
    new = clone(program)
    keep_idx = {id(op) for op in kept}
    new_gb = new.global_block()
    new_gb.ops = [nop for op, nop in zip(gb.ops, new_gb.ops) if id(op) in keep_idx]
    _renumber(new, _reachable_blocks(new))
    _drop_unread_rng_state(new)
    # Global vars: keep what kept ops mention and the feeds/fetches; nothing else.
    mentioned = set(feeds) | set(fetches)
    for op in new_gb.ops:
        mentioned.update(op_reads(op))
        mentioned.update(op.output_arg_names)
    for name in [n for n in new_gb.vars if n not in mentioned]:
        del new_gb.vars[name]
    for n in feeds:
        new_gb.vars[n].is_data = True
    new.bound_tensors = {n: t for n, t in program.bound_tensors.items() if n in new_gb.vars}
    new._version += 1
    return new
