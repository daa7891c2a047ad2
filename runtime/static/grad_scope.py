"""Where ``rt.grad`` called while a branch or loop body is being traced builds its gradient from.

``gradients`` (backward.py) takes the ops of the enclosing blocks too, since the target's value
depends on them; a loop body's carried inputs end that walk, so a gradient that would go back
through earlier iterations (as eager autograd's does) is refused instead of silently cut there.
"""
from ..registry import get_op
from .blocks import is_float_var


def _ancestry(block):
    out = []
    while block is not None:
        out.append(block)
        block = block.parent
    return out


def grad_block(target_block):
    """``(block, ops)`` a gradient is built from: taken inside a branch or loop body being traced
    (``rt.grad`` under a tensor-dependent ``if``), the target's value also depends on the ops of the
    enclosing blocks before it, which the gradient must go through as eager autograd does; its ops
    go in the current block, which reads the enclosing blocks' values."""
    current = target_block.program.current_block()
    chain = _ancestry(current)
    if target_block not in chain:
        return target_block, list(target_block.ops)
    return current, [op for b in reversed(chain) for op in b.ops]


def refuse_loop_history(block, ops, seeds, inputs):
    """Raise when a gradient taken in a loop body being traced reaches a float value the loop
    carries from the previous iteration while an input comes from before the loop: eager autograd
    follows that value back through the earlier iterations, a gradient in the body cannot."""
    bodies = [b for b in _ancestry(block) if b.carries]
    if not bodies:
        return
    reach = set(seeds)
    for op in reversed(ops):  # the ops a gradient flows through (not `detach()`'s stop_gradient)
        if not reach.isdisjoint(op.output_arg_names) and get_op(op.type).grad is not None:
            reach.update(op.input_arg_names)
    for body in bodies:
        carried = any(is_float_var(body.vars[n]) for n in reach & body.carries)
        outside = [x.name for x in inputs if body not in _ancestry(x.block)]
        if carried and outside:
            raise NotImplementedError(
                f"grad inside a tensor-dependent loop: the gradient of the output w.r.t. '{outside[0]}' "
                f"(defined before the loop) goes through a value the loop carries from one iteration to the "
                f"next, and eager autograd would follow it back through the earlier "
                f"iterations, which a gradient taken in the loop body cannot; take the gradient after the "
                f"loop, or of a value computed in this iteration only")
