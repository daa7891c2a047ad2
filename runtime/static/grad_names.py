"""Names in the backward pass being built: a fresh ``X@GRAD`` name per gradient, and renaming a
var in the grad ops that mention it (with an index of those ops, so a rename does not walk every op
of a large Program's backward).
"""
import itertools

from ..framework import Block

_chain = itertools.chain.from_iterable


def unique_grad_name(block, name):
    """``name@GRAD``, or ``name@GRAD@k`` when the Program already has that name."""
    base = f"{name}@GRAD"
    prog, cand, k = block.program, base, 1
    while prog._taken(cand):
        cand, k = f"{base}@{k}", k + 1
    return cand


def rename_in_op(op, old, new):
    """Every mention of var ``old`` in ``op`` (slots, name attrs, ops of its sub-blocks) becomes ``new``."""
    rename_own(op, old, new)
    for sub in op.sub_blocks():
        for sop in sub.ops:
            rename_in_op(sop, old, new)


class NameIndex:
    """Which names the ops of a backward pass's blocks mention, for renaming a grad var.

    A grad op's sub-blocks hold the recomputed forward and its backward, nested as deep as the
    user's branches and loops: walking them for every rename was most of what building a backward
    cost.  Each op's own names and each block's names (its ops' and its sub-blocks', a superset
    once renamed) are collected once per ``gradients`` call, shared by the nested passes, and a
    rename enters only the blocks that mention the old name.  A block that got ops since it was
    indexed is indexed again; the blocks nested in it are complete by then (a grad rule appends its
    control-flow op after building the op's sub-blocks), so their entries stay exact.
    """

    stack = []

    def __init__(self):
        self.ops = {}     # id(op) -> (op, its own names, its sub-blocks)
        self.blocks = {}  # id(block) -> (block, number of ops indexed, names mentioned at any depth)

    def own(self, op):
        """(op, the names its slots and attrs mention, its sub-blocks), indexed once."""
        got = self.ops.get(id(op))
        if got is None:
            names = set(_chain(op.inputs.values()))
            names.update(_chain(op.outputs.values()))
            subs = []
            for v in op.attrs.values():
                if isinstance(v, str):
                    names.add(v)
                elif isinstance(v, list):
                    names.update(x for x in v if isinstance(x, str))
                elif isinstance(v, Block):
                    subs.append(v)
            got = self.ops[id(op)] = (op, names, subs)
        return got

    def block(self, block):
        """The names ``block``'s ops mention at any depth (indexed again when it got ops)."""
        got = self.blocks.get(id(block))
        if got is None or got[1] != len(block.ops):
            names = set()
            for op in block.ops:
                _, own, subs = self.own(op)
                names |= own
                for sub in subs:
                    names |= self.block(sub)
            got = self.blocks[id(block)] = (block, len(block.ops), names)
        return got[2]

    def mentions(self, op, name):
        """Whether ``op`` or a block nested in it mentions ``name``."""
        _, own, subs = self.own(op)
        return name in own or any(name in self.block(sub) for sub in subs)

    def rename(self, op, old, new):
        """``rename_in_op`` on ``op``, entering only the sub-blocks that mention ``old``."""
        _, own, subs = self.own(op)
        if old in own:
            rename_own(op, old, new)
            own.add(new)
        for sub in subs:
            names = self.block(sub)
            if old in names:
                for sop in sub.ops:
                    if self.mentions(sop, old):
                        self.rename(sop, old, new)
                names.add(new)


def rename_own(op, old, new):
    """``rename_in_op`` on ``op``'s slots and name attrs, not its sub-blocks."""
    for slots in (op.inputs, op.outputs):
        for names in slots.values():
            if old in names:
                for j, n in enumerate(names):
                    if n == old:
                        names[j] = new
    for k, v in op.attrs.items():
        if isinstance(v, str):
            if v == old:
                op.attrs[k] = new
        elif isinstance(v, list):
            if old in v:
                op.attrs[k] = [new if x == old else x for x in v]
