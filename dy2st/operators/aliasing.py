"""`y[k] = v` on a traced tensor changes the object every alias of `y` holds, as in eager.

Eager item assignment is in place: a list that holds `y`, a second name bound to it, or the
caller of a helper that wrote into its argument all see the new value. A `set_value` op makes a
new Variable, so rebinding only the written name would leave every alias on the old value, a
silently different result. When the written Variable was made by an op of the block being
built, the two Python objects trade their state: the object every alias holds now names the
`set_value` output, and the other object keeps naming the old value for the ops that already
read it (ops refer to Variables by name, so they are unaffected).

Variables that are not made in the current block (feeds, parameters, the placeholders of a
loop body or of a branch's outer values) keep the rebinding alone: those are wired by the
operators that own them. A write into a fed input is warned about at the user's line: eager
changes the caller's tensor, the converted function does not.
"""
import warnings


def _made_here(var):
    block = var.block
    return any(var.name in op.output_arg_names for op in reversed(block.ops))


def write_in_place(target, out):
    """Return the object the write should leave bound: `target` itself, now naming `out`'s value."""
    block = getattr(out, "block", None)
    if getattr(target, "is_data", False):
        op = block.ops[-1] if block is not None and block.ops else None
        where = f"{op.origin}: " if op is not None and op.origin is not None else ""
        warnings.warn(f"dy2st: {where}an item write into the input tensor '{target.name}' changes only the "
                      "function's own copy under to_static (eager changes the caller's tensor too); write into "
                      f"a copy ({target.name} = {target.name}.clone()) to make both agree", stacklevel=3)
    if block is None or getattr(target, "block", None) is not block or type(target) is not type(out) \
            or target.persistable or target.is_data or not _made_here(target):
        return out
    old_name, new_name = target.name, out.name
    target.__dict__, out.__dict__ = out.__dict__, target.__dict__
    block.vars[new_name] = target
    block.vars[old_name] = out
    return target
