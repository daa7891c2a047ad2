"""What a pass may not move, drop or repeat: the one set of effect predicates.

Three questions every analysis on a Program asks, answered once here:

- ``is_persistable(block, name)``: the var is state living outside a run (a
  parameter bound to a live eager tensor, or a persistable scope entry).
- ``writes_persistable(block, op)``: running the op changes such state.
- ``has_side_effect(block, op)``: running the op twice is observable (prints,
  asserts, persistable writes); a gradient's recomputation must skip it
  (``side_effect_inside(block)``: such an op anywhere in a block or its sub-blocks).
- ``must_keep(block, op)``: dead-code elimination may not drop the op even when
  nothing reads its outputs (side effects, and impure ops such as random ones,
  whose draws advance the generator as eager mode does).
"""
from ...framework import Block
from ...registry import get_op

def is_persistable(block, name):
    """True when ``name`` is persistable state (bound eager tensor or persistable var)."""
    if name in block.program.bound_tensors:
        return True
    v = block._find_var(name)
    return v is not None and v.persistable


def _persistable_outputs(op, bound, find):
    """The names ``op`` writes that are persistable: ``is_persistable``, inline (every analysis
    asks this of every op; ``bound``/``find`` are the block's ``bound_tensors``/``_find_var``)."""
    out = []
    for names in op.outputs.values():
        for n in names:
            if n in bound:
                out.append(n)
            else:
                v = find(n)
                if v is not None and v.persistable:
                    out.append(n)
    return out


def writes_persistable(block, op):
    """True when ``op`` writes a persistable var (a parameter update, running statistics...)."""
    return bool(_persistable_outputs(op, block.program.bound_tensors, block._find_var))


def persistables_written(block, memo=None):
    """The persistable names the ops of ``block`` and of their sub-blocks (branches, loop bodies) write.

    ``memo`` (a dict a compiler keeps) answers a block asked about again, at any depth, without
    walking it: compiling nested blocks asks about each inner block once per level otherwise.  An
    answer holds while the Program's version (bumped by every op appended or rewired) is unchanged."""
    version = block.program._version
    if memo is not None:
        got = memo.get(id(block))
        if got is not None and got[0] is block and got[1] == version:
            return got[2]
    found = set()
    bound = block.program.bound_tensors
    find = block._find_var
    for op in block.ops:
        found.update(_persistable_outputs(op, bound, find))
        for sub in op.attrs.values():
            if isinstance(sub, Block):
                found |= persistables_written(sub, memo)
    if memo is not None:
        memo[id(block)] = (block, version, found)
    return found


def has_side_effect(block, op):
    """Ops a recomputation must not repeat: prints, asserts, writes of persistable state."""
    return get_op(op.type).side_effect or writes_persistable(block, op)


def side_effect_inside(block):
    """True when ``block`` or a block nested in it has an op a recomputation must not repeat."""
    bound, find = block.program.bound_tensors, block._find_var
    for op in block.ops:
        if get_op(op.type).side_effect or _persistable_outputs(op, bound, find):  # has_side_effect
            return True
        for sub in op.attrs.values():  # op.sub_blocks(), without building the list
            if isinstance(sub, Block) and side_effect_inside(sub):
                return True
    return False


def _impure_inside(op):
    """A cond/while whose body prints, asserts, draws random numbers or writes persistable state:
    it must run even when nothing reads its outputs (a `print` or `assert` under a tensor `if`,
    batch norm's running statistics in a branch whose result is unused)."""
    for sub in op.sub_blocks():
        for inner in sub.ops:
            if not get_op(inner.type).pure or writes_persistable(sub, inner) or _impure_inside(inner):
                return True
    return False


def must_keep(block, op):
    """Ops dead-code elimination keeps even with unread outputs (effects, randomness)."""
    return not get_op(op.type).pure or writes_persistable(block, op) or _impure_inside(op)


def is_random(op):
    """An op that draws from the random generator (declared ``random=True``)."""
    return get_op(op.type).random
