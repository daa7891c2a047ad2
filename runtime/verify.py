"""``Program.verify()``: def-before-use, and cond/while outputs that agree in dtype and rank.

Works on the IR by duck typing (blocks, ops, var names), so the IR module can
import it without a cycle.
"""


class ProgramError(ValueError):
    """A Program is not well formed; the message names the variable and op."""


def _check_block(block, defined):
    defined = set(defined)
    for v in block.vars.values():
        if v.is_data or v.persistable:
            defined.add(v.name)
    for i, op in enumerate(block.ops):
        for slot, names in op.inputs.items():
            for n in names:
                if n not in defined:
                    raise ProgramError(
                        f"block {block.idx}, op #{i} '{op.type}': input {slot}='{n}' is used before it is defined")
        if op.type == "cond":
            _check_cond(op, defined)
        elif op.type == "while":
            _check_while(op, defined)
        elif op.type == "while_grad":
            given = set(op.attrs.get("carry_in", ())) | set(op.attrs.get("seed_names", ()))
            _check_block(op.attrs["grad_block"], defined | set(op.input_arg_names) | given)
        else:
            for sub in op.sub_blocks():
                _check_block(sub, defined | set(op.input_arg_names))
        defined.update(op.output_arg_names)


def _agree(what, a, b):
    if a.dtype != b.dtype or len(a.shape) != len(b.shape):
        raise ProgramError(
            f"{what}: '{a.name}' is {a.dtype} of rank {len(a.shape)} {list(a.shape)} but '{b.name}' is "
            f"{b.dtype} of rank {len(b.shape)} {list(b.shape)}")


def _check_cond(op, defined):
    blocks = (op.attrs["true_block"], op.attrs["false_block"])
    outs = (op.attrs["true_outs"], op.attrs["false_outs"])
    for blk, names in zip(blocks, outs):
        _check_block(blk, defined)
        inner = defined | {n for o in blk.ops for n in o.output_arg_names}
        for n in names:
            if n not in inner:
                raise ProgramError(f"cond op: branch output '{n}' is never defined in block {blk.idx}")
    for t, f, o in zip(outs[0], outs[1], op.outputs["Out"]):
        _agree(f"cond output '{o}' differs between branches",
               blocks[0].var(t), blocks[1].var(f))


def _check_while(op, defined):
    blk = op.attrs["sub_block"]
    carry_in, carry_out = op.attrs["carry_in"], op.attrs["carry_out"]
    _check_block(blk, defined | set(carry_in))
    for i, o in zip(carry_in, carry_out):
        _agree(f"while loop carry '{i}' changes across iterations", blk.var(i), blk.var(o))


def verify_program(program):
    """Check def-before-use and that cond/while outputs agree in dtype and rank; ProgramError naming the op if not."""
    _check_block(program.global_block(), set())
