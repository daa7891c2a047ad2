"""Inline one Program into the Program being built: a loaded model called inside converted code.

A ``TranslatedLayer`` called while another Program is built (a converted ``forward`` that
runs a loaded backbone, as Paddle's ``jit.load`` + ``to_static`` fine-tuning does) cannot run
its own compiled Program: its inputs are Variables with no values yet.  Its ops are copied
into the block being built instead, as torch.fx's ``Graph.graph_copy`` copies one graph into
another, so the outer Program's backward, passes, save and export see one Program::

    loaded Program                      outer Program, block being built
      feed x                              y = linear(x0)        <- the caller's Variable for x
      h = matmul(x, linear_0.w_0)   ->    h_1 = matmul(y, w)    <- w: the loaded layer's Parameter
      out = relu(h)                       out_1 = relu(h_1)

Every Variable of the copied Program gets a fresh name in the outer one; a feed takes the
caller's Variable, and a bound eager tensor (a parameter, a buffer) is bound again by
reference, so training the outer Program updates the loaded layer's own parameters.  Sub-blocks
(``cond``/``while`` bodies) are copied under the block being built, and the attrs that name
Variables (``true_outs``, ``carry_in``...) are renamed with them.
"""
from ..dispatch import to_variable
from ..framework import Block, default_main_program
from .blocks import new_block
from .program_tools import append_copy, copy_var


def _renamed(value, names):
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [names.get(v, v) for v in value]
    return value


def inline_program(program, feed_names, fetch_names, inputs, label="the loaded model"):
    """Copy ``program``'s ops into the block being built, ``inputs`` (Variables) standing for
    ``feed_names``; returns the Variables of ``fetch_names``."""
    outer = default_main_program()
    here = outer.current_block()
    names = {feed: x.name for feed, x in zip(feed_names, inputs)}
    for name, tensor in program.bound_tensors.items():
        names[name] = to_variable(tensor).name
    blocks = {0: here}
    for b in program.blocks[1:]:  # a block's parent comes before it
        blocks[b.idx] = new_block(outer, blocks[b.parent_idx].idx)
    mapped = set(names)  # feeds and bound tensors: Variables the outer Program already has
    for b in program.blocks:
        target = blocks[b.idx]
        for v in b.vars.values():
            if v.name in mapped:
                continue
            if v.is_data or v.persistable:
                raise ValueError(f"{label} reads '{v.name}', which is neither one of its inputs "
                                 f"{list(feed_names)} nor one of its parameters")
            new = names.get(v.name)  # set when another block declared it too: the same new name here
            if new is None:
                new = names[v.name] = outer.unique_name(v.name.rsplit("_", 1)[0])
            copy_var(target, v, new)
    for b in program.blocks:
        target = blocks[b.idx]
        for op in b.ops:
            attrs = {k: (blocks[v.idx] if isinstance(v, Block) else _renamed(v, names)) for k, v in op.attrs.items()}
            append_copy(target, op, attrs, names)
    return [here.var(names[n]) for n in fetch_names]
