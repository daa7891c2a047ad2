"""Def-use queries on Blocks: which names a block defines, and which it reads from outside.

``external_reads`` is how a sub-block's outer values become explicit op inputs
('Input' of ``cond``, 'Params' of ``while``): names read inside (recursively
through nested sub-blocks) that nothing inside defines before.  For the block::

    { // block 1
        t = matmul(X=h, Y=w)
        h2 = tanh(X=t)
    }

``external_reads(block1)`` is ``['h', 'w']`` and ``defined_names(block1)`` is ``{'t', 'h2'}``.
"""
from ...framework import Block


def defined_names(block):
    """Every name an op of ``block`` writes (not recursing into sub-blocks)."""
    return {n for op in block.ops for n in op.output_arg_names}


def sub_block_defined(op, sub):
    """Names a nested sub-block gets from its op rather than from outside (a while's carries)."""
    if op.type == "while" and sub is op.attrs.get("sub_block"):
        return set(op.attrs.get("carry_in", ()))
    if op.type == "while_grad":  # both blocks get each step's carries (and the grad seeds)
        return set(op.attrs.get("carry_in", ())) | set(op.attrs.get("seed_names", ()))
    return set()


def external_reads(block, defined=(), extra_reads=()):
    """Ordered names read in ``block`` (and nested sub-blocks) before being defined there."""
    defined = set(defined)
    reads = {}
    _collect_reads(block, defined, reads)
    for n in extra_reads:
        if n not in defined:
            reads.setdefault(n, None)
    return list(reads)


def _collect_reads(block, defined, reads):
    """``external_reads``' walk: adds to ``reads`` (an ordered dict) and ``defined`` in place.

    A nested sub-block's reads are collected into their own dict and then filtered by what the
    enclosing block defined before its op, exactly as a separate ``external_reads`` call would."""
    for op in block.ops:
        for names in op.inputs.values():
            for n in names:
                if n not in defined:
                    reads[n] = None
        for sub in op.attrs.values():
            if not isinstance(sub, Block):
                continue
            inner = {}
            _collect_reads(sub, sub_block_defined(op, sub), inner)
            for n in inner:
                if n not in defined:
                    reads[n] = None
        for names in op.outputs.values():
            defined.update(names)


def op_reads(op):
    """Names ``op`` reads: its inputs plus what its sub-blocks read from outside them."""
    names = list(op.input_arg_names)
    for sub in op.sub_blocks():
        names.extend(external_reads(sub, sub_block_defined(op, sub)))
    return list(dict.fromkeys(names))


def users(block):
    """name -> number of ops of ``block`` reading it (sub-block reads counted on their op)."""
    count = {}
    for op in block.ops:
        for n in op_reads(op):
            count[n] = count.get(n, 0) + 1
    return count
