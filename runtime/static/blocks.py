"""Small IR helpers shared by the control-flow builders and their gradients.

The analyses they rely on (``external_reads``, ``defined_names``, effects) live
in ``passes``; they are re-exported here for the builders' convenience.
"""
from ..framework import Block
from ..registry import get_op
from .passes.defuse import defined_names, external_reads
from .passes.effects import has_side_effect
from .program_tools import copy_var

__all__ = [
    "copy_var",
    "defined_names",
    "external_reads",
    "has_random_ops",
    "has_side_effect",
    "is_float_var",
    "new_block",
]


def new_block(program, parent_idx):
    """A new block under ``parent_idx`` without changing where ops are appended."""
    old = program._current
    blk = program._create_block(parent_idx=parent_idx)
    program._current = old
    return blk


def is_float_var(v):
    """Whether ``v`` is a tensor variable of a float dtype (the ones that can carry a gradient)."""
    return v is not None and v.kind == "tensor" and str(v.dtype) in ("float16", "float32", "float64")


def has_random_ops(block):
    """True when ``block`` (or a nested sub-block) holds a random op (impure, not print/assert)."""
    for op in block.ops:
        if get_op(op.type).random:  # is_random(op)
            return True
        for sub in op.attrs.values():  # op.sub_blocks(), without building the list
            if isinstance(sub, Block) and has_random_ops(sub):
                return True
    return False
