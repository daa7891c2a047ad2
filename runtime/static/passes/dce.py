"""Dead-code elimination: drop ops nothing fetched needs, and vars nothing mentions.

Tracing leaves values nobody reads (a branch flag computed then unused, a shape
taken for a Python decision, a loop's copy of a carry).  For fetches ``['y']``::

    t = matmul(X=x, Y=w)            t = matmul(X=x, Y=w)
    u = exp(X=x)            ->      y = relu(X=t)
    y = relu(X=t)                   () = print(X=y)
    () = print(X=y)

Ops with effects or randomness (``effects.must_keep``) stay.  Inside ``cond`` and
``while`` sub-blocks the same walk runs from the branch outputs / loop carries.
The Program is edited in place (its version bumped, so cached plans rebuild) and
returned.
"""
from ...framework import Block
from .defuse import external_reads, sub_block_defined
from .effects import is_persistable
from .liveness import live_ops


def _sub_block_outputs(op):
    """(sub-block, names it must produce) for the control-flow ops whose contract is known."""
    a = op.attrs
    if op.type == "cond":
        return [(a["true_block"], list(a["true_outs"])), (a["false_block"], list(a["false_outs"]))]
    if op.type == "while":
        return [(a["sub_block"], list(a["carry_out"]) + [a["cond_out"]])]
    return []


def _dce_block(block, output_names):
    before = len(block.ops)
    block.ops = live_ops(block, block.ops, output_names)
    changed = len(block.ops) != before
    for op in block.ops:
        for sub, outs in _sub_block_outputs(op):
            changed |= _dce_block(sub, outs)
    return changed


def _mentioned(program):
    # What every op of every block reads, writes or names. A sub-block listed in the Program has
    # its ops' inputs collected when its turn comes (a superset of what it reads from outside), so
    # only a sub-block missing from the list needs ``op_reads``' recursive walk: walking every
    # nested block again at each level above it made this quadratic in the nesting depth.
    # One pass over each op's slots and attrs (a set: the order names are met in does not matter).
    names = set()
    add, update = names.add, names.update
    listed = {id(b) for b in program.blocks}
    for b in program.blocks:
        for op in b.ops:
            for group in op.inputs.values():
                update(group)
            for group in op.outputs.values():
                update(group)
            for v in op.attrs.values():  # names held in attrs (carry lists, branch outputs)
                if isinstance(v, str):
                    add(v)
                elif isinstance(v, (list, tuple)):
                    for x in v:
                        if isinstance(x, str):
                            add(x)
                elif isinstance(v, Block) and id(v) not in listed:
                    update(external_reads(v, sub_block_defined(op, v)))
    return names


def remove_unused_vars(program, keep=()):
    """Drop vars no op mentions, except data, persistable and ``keep`` vars."""
    used = _mentioned(program) | set(keep)
    for b in program.blocks:
        for name in [n for n, v in b.vars.items()
                     if n not in used and not v.is_data and not is_persistable(b, n)]:
            del b.vars[name]
    return program


def eliminate_dead_code(program, fetch_names):
    """Drop the ops (and then vars) ``fetch_names`` do not need; returns ``program``."""
    if _dce_block(program.global_block(), list(fetch_names)):
        program._version += 1
    return remove_unused_vars(program, fetch_names)
