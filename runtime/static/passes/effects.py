"""What a pass may not move, drop or repeat: the one set of effect predicates.

Three questions every analysis on a Program asks, answered once here:

- ``is_persistable(block, name)``: the var is state living outside a run (a
  parameter bound to a live eager tensor, or a persistable scope entry).
- ``writes_persistable(block, op)``: running the op changes such state.
- ``has_side_effect(block, op)``: running the op twice is observable (prints,
  asserts, persistable writes); a gradient's recomputation must skip it.
- ``must_keep(block, op)``: dead-code elimination may not drop the op even when
  nothing reads its outputs (side effects, and impure ops such as random ones,
  whose draws advance the generator as eager mode does).
"""
from ...registry import get_op

# Ops whose only effect is observable output (no value, no state).
OBSERVABLE_OPS = frozenset(("print", "assert"))


def is_persistable(block, name):
    """True when ``name`` is persistable state (bound eager tensor or persistable var)."""
    if name in block.program.bound_tensors:
        return True
    v = block._find_var(name)
    return v is not None and v.persistable


def writes_persistable(block, op):
    """True when ``op`` writes a persistable var (a parameter update, running statistics...)."""
    return any(is_persistable(block, n) for n in op.output_arg_names)


def has_side_effect(block, op):
    """Ops a recomputation must not repeat: prints, asserts, writes of persistable state."""
    return op.type in OBSERVABLE_OPS or writes_persistable(block, op)


def must_keep(block, op):
    """Ops dead-code elimination keeps even with unread outputs (effects, randomness)."""
    return not get_op(op.type).pure or writes_persistable(block, op)


def is_random(op):
    """An impure op that is not merely observable: it draws from the random generator."""
    return not get_op(op.type).pure and op.type not in OBSERVABLE_OPS
