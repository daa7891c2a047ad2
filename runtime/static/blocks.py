"""Small IR queries shared by the control-flow builders and their gradients.

``external_reads`` is how a sub-block's outer values become explicit op inputs
('Input' of ``cond``, 'Params' of ``while``): names read inside (recursively
through nested sub-blocks) that nothing inside defines.
"""
from ..registry import get_op


def defined_names(block):
    return {n for op in block.ops for n in op.output_arg_names}


def _sub_defined(op, sub):
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
    for op in block.ops:
        names = list(op.input_arg_names)
        for sub in op.sub_blocks():
            names.extend(external_reads(sub, _sub_defined(op, sub)))
        for n in names:
            if n not in defined:
                reads.setdefault(n, None)
        defined.update(op.output_arg_names)
    for n in extra_reads:
        if n not in defined:
            reads.setdefault(n, None)
    return list(reads)


def has_side_effect(block, op):
    """Ops a recomputation must not repeat: prints, asserts, writes of persistable state."""
    if get_op(op.type).side_effect:
        return True
    prog = block.program
    for n in op.output_arg_names:
        v = block._find_var(n)
        if n in prog.bound_tensors or (v is not None and v.persistable):
            return True
    return False


def copy_var(block, v, name=None):
    nv = block.create_var(name=name or v.name, shape=v.shape, dtype=v.dtype, persistable=v.persistable,
                          stop_gradient=v.stop_gradient, is_data=v.is_data, kind=v.kind)
    nv.trainable = v.trainable
    return nv


def new_block(program, parent_idx):
    """A new block under ``parent_idx`` without changing where ops are appended."""
    old = program._current
    blk = program._create_block(parent_idx=parent_idx)
    program._current = old
    return blk


def is_float_var(v):
    return v is not None and v.kind == "tensor" and str(v.dtype) in ("float16", "float32", "float64")


def opdef_of(op):
    return get_op(op.type)


def has_random_ops(block):
    """True when ``block`` (or a nested sub-block) holds an op drawing random numbers."""
    for op in block.ops:
        if get_op(op.type).random:
            return True
        if any(has_random_ops(sub) for sub in op.sub_blocks()):
            return True
    return False
