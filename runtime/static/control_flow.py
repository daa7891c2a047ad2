"""Builders ``cond`` and ``while_loop``: trace Python functions into sub-blocks of a ``cond``/``while`` op.

    out = cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)
    # block 0:  cond_0 = cond(Cond=greater_than_0, Input=[x])  {true_block=block[1], false_block=block[2]}

In dynamic mode with eager inputs both run plain Python instead.  Values a
branch or body reads from outside become explicit op inputs ('Input'/'Params');
Python scalars among outputs or loop vars become constants.
"""
import numpy as np

from ..dispatch import to_variable
from ..framework import Variable, default_main_program, in_dynamic_mode, static_mode_guard
from ..ops.common import as_tensor
from ..tensor import Tensor
from .blocks import defined_names, external_reads, new_block

_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


# -- nested structures --------------------------------------------------------------
def flatten(x):
    """(leaves, tree): tuples/lists/dicts are structure, everything else (incl. None) is a leaf."""
    if isinstance(x, (list, tuple)):
        leaves, subs = [], []
        for v in x:
            lv, t = flatten(v)
            leaves.extend(lv)
            subs.append(t)
        # by kind, not class name: a list subclass (dy2st's probe list) matches a plain list;
        # a namedtuple keeps its class, so `p.a` still works on what comes out
        kind = type(x) if hasattr(x, "_fields") else "tuple" if isinstance(x, tuple) else "list"
        return leaves, (kind, subs)
    if isinstance(x, dict):
        leaves, subs = [], []
        for k in x:
            lv, t = flatten(x[k])
            leaves.extend(lv)
            subs.append((k, t))
        return leaves, ("dict", subs)
    return [x], ("none" if x is None else "leaf")


def unflatten(tree, leaves):
    """Rebuild a nested structure from its ``tree`` description and the flat ``leaves``."""
    it = iter(leaves)

    def build(t):
        if t in ("leaf", "none"):
            return next(it)
        kind, subs = t
        if kind == "dict":
            return {k: build(s) for k, s in subs}
        vals = [build(s) for s in subs]
        if isinstance(kind, type):  # a namedtuple
            return kind(*vals)
        return tuple(vals) if kind == "tuple" else vals
    return build(tree)


def _same_tree(a, b, loose=False):
    if a in ("leaf", "none") or b in ("leaf", "none"):
        return a == b
    if a[0] != b[0] and not (loose and {a[0], b[0]} <= {"list", "tuple"}):
        return False
    if len(a[1]) != len(b[1]):
        return False
    if a[0] == "dict":
        return all(ka == kb and _same_tree(sa, sb, loose) for (ka, sa), (kb, sb) in zip(a[1], b[1]))
    return all(_same_tree(sa, sb, loose) for sa, sb in zip(a[1], b[1]))


def _describe(tree):
    if tree == "leaf":
        return "Variable"
    if tree == "none":
        return "None"
    kind, subs = tree
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {_describe(s)}" for k, s in subs) + "}"
    inner = ", ".join(_describe(s) for s in subs)
    if isinstance(kind, type):
        return f"{kind.__name__}({inner})"
    return f"({inner}{',' if len(subs) == 1 else ''})" if kind == "tuple" else f"[{inner}]"


def _as_var(x, what):
    """A leaf as a Variable of the current block (scalars -> constants, Tensors bound)."""
    if isinstance(x, Variable):
        return x
    if isinstance(x, Tensor):
        return to_variable(x)
    if isinstance(x, _SCALARS):
        return as_tensor(x.item() if isinstance(x, np.generic) else x)
    raise TypeError(f"{what}: expected Variables, Tensors or Python numbers, got {type(x).__name__}")


def _fmt(v):
    return f"{v.dtype}{list(v.shape)}"


def _check_pred(pred, what, sized=True):
    if pred.dtype != "bool":
        raise TypeError(f"{what}: the condition must be a bool tensor, got '{pred.name}' of dtype {pred.dtype}; "
                        "compare it (e.g. x > 0) or cast it")
    known = [d for d in pred.shape if d >= 0]
    if sized and (int(np.prod(known)) > 1 if known else False):
        raise ValueError(f"{what}: the condition must have exactly one element, got '{pred.name}' with shape "
                         f"{pred.shape}; reduce it first (e.g. rt.all(c) or rt.any(c))")
    return pred


def _is_static_pred(pred):
    return isinstance(pred, Variable) or not in_dynamic_mode()


# -- cond -------------------------------------------------------------------------------
def _trace_branch(program, fn, what):
    blk, out = trace_block(program, fn)
    leaves, tree = block_leaves(program, blk, out, what)
    return blk, leaves, tree


def trace_block(program, fn):
    """``(block, fn())``: ``fn`` (or nothing, for None) traced into a new sub-block of the current one."""
    blk = new_block(program, program._current)
    with program.block_guard(blk), static_mode_guard(True):
        return blk, (fn() if fn is not None else None)


def block_leaves(program, blk, out, what):
    """``(leaves, tree)`` of a branch's output ``out``: its leaves as Variables of ``blk``."""
    with program.block_guard(blk), static_mode_guard(True):
        leaves, tree = flatten(out)
        return [None if x is None else _as_var(x, what) for x in leaves], tree


def cond_pred(pred, sized=True):
    """The condition of a ``cond`` op as a checked Variable (one bool element; with ``sized=False``
    any size, the op itself refusing more than one element when it runs)."""
    with static_mode_guard(True):
        return _check_pred(_as_var(pred, "cond"), "cond", sized)


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, as a ``cond`` op when ``pred`` is static."""
    if not _is_static_pred(pred):
        if isinstance(pred, Tensor) and pred.size != 1:
            raise ValueError(f"cond: the condition must have exactly one element, got shape {pred.shape}")
        fn = true_fn if bool(pred) else false_fn
        return fn() if fn is not None else None
    if true_fn is not None and not callable(true_fn) or false_fn is not None and not callable(false_fn):
        raise TypeError("cond: true_fn and false_fn must be callables (or None)")
    program = default_main_program()
    parent = program.current_block()
    pred = cond_pred(pred)
    tb, t_leaves, t_tree = _trace_branch(program, true_fn, "cond true_fn output")
    fb, f_leaves, f_tree = _trace_branch(program, false_fn, "cond false_fn output")
    return cond_op(parent, pred, (tb, t_leaves, t_tree), (fb, f_leaves, f_tree))


def cond_op(parent, pred, true_branch, false_branch):
    """Append the ``cond`` op of two traced branches, each ``(block, leaves, tree)``, to ``parent``;
    returns its outputs in the branches' structure."""
    program = parent.program
    tb, t_leaves, t_tree = true_branch
    fb, f_leaves, f_tree = false_branch
    if not _same_tree(t_tree, f_tree):
        raise ValueError(f"cond: true_fn and false_fn must return the same structure, but true_fn returned "
                         f"{_describe(t_tree)} and false_fn returned {_describe(f_tree)}")
    outs, t_outs, f_outs = [], [], []
    for i, (t, f) in enumerate(zip(t_leaves, f_leaves)):
        if t is None:
            outs.append(None)
            continue
        if t.dtype != f.dtype or len(t.shape) != len(f.shape):
            raise ValueError(f"cond: output #{i} differs between branches: true_fn gives '{t.name}' {_fmt(t)}, "
                             f"false_fn gives '{f.name}' {_fmt(f)} (dtype and rank must agree)")
        shape = [a if a == b else -1 for a, b in zip(t.shape, f.shape)]
        outs.append(parent.create_var(name=program.unique_name("cond_out"), shape=shape, dtype=t.dtype,
                                      stop_gradient=t.stop_gradient and f.stop_gradient))
        t_outs.append(t.name)
        f_outs.append(f.name)
    inputs = list(dict.fromkeys(external_reads(tb, extra_reads=t_outs) + external_reads(fb, extra_reads=f_outs)))
    parent.append_op("cond", {"Cond": [pred.name], "Input": inputs},
                     {"Out": [v.name for v in outs if v is not None]},
                     {"true_block": tb, "false_block": fb, "true_outs": t_outs, "false_outs": f_outs})
    return unflatten(t_tree, outs)


# -- while_loop ---------------------------------------------------------------------------
def _trace_body(program, cond_fn, body, tree, inits, shapes):
    blk = new_block(program, program._current)
    carry_in = [blk.create_var(name=program.unique_name("loop_var"), shape=s, dtype=v.dtype,
                               stop_gradient=v.stop_gradient) for v, s in zip(inits, shapes)]
    blk.carries = frozenset(v.name for v in carry_in)
    with program.block_guard(blk), static_mode_guard(True):
        out = body(*unflatten(tree, carry_in))
        if not isinstance(out, (list, tuple)):
            out = [out]
        o_leaves, o_tree = flatten(list(out))
        if not _same_tree(tree, o_tree, loose=True):
            raise ValueError(f"while_loop: body must return the same structure as loop_vars "
                             f"{_describe(tree)}, got {_describe(o_tree)}")
        o_leaves = [_as_var(x, "while_loop body output") for x in o_leaves]
        pred = _check_pred(_as_var(cond_fn(*unflatten(tree, o_leaves)), "while_loop cond"), "while_loop cond")
    for i, (init, a, b) in enumerate(zip(inits, carry_in, o_leaves)):
        if a.dtype != b.dtype or len(a.shape) != len(b.shape):
            raise ValueError(f"while_loop: loop var #{i} ('{init.name}') changes across iterations: it enters as "
                             f"{_fmt(a)} and the body returns '{b.name}' {_fmt(b)} (dtype and rank must stay)")
    return blk, carry_in, o_leaves, pred


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Run ``body`` while ``cond`` holds; a ``while`` op when any loop var or the condition is static."""
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callables")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise TypeError("while_loop: loop_vars must be a non-empty list or tuple")
    leaves, tree = flatten(list(loop_vars))
    if in_dynamic_mode() and not any(isinstance(x, Variable) for x in leaves):
        vals = list(loop_vars)
        while True:
            c = cond(*vals)
            if isinstance(c, Variable):
                break  # the condition became static: build the op below
            if not bool(c):
                return vals
            out = body(*vals)
            vals = list(out) if isinstance(out, (list, tuple)) else [out]
        leaves, tree = flatten(vals)
    program = default_main_program()
    parent = program.current_block()
    with static_mode_guard(True):
        inits = [_as_var(x, "while_loop loop_vars") for x in leaves]
        pred0 = _check_pred(_as_var(cond(*unflatten(tree, inits)), "while_loop cond"), "while_loop cond")
    shapes = [v.shape for v in inits]
    for _ in range(4):  # a dim the body changes becomes -1; trace again with it relaxed
        blk, carry_in, carry_out, pred = _trace_body(program, cond, body, tree, inits, shapes)
        relaxed = [[a if a == b else -1 for a, b in zip(s, o.shape)] for s, o in zip(shapes, carry_out)]
        if relaxed == shapes:
            break
        shapes = relaxed
    inner = defined_names(blk) | {v.name for v in carry_in}
    params = [n for n in external_reads(blk, {v.name for v in carry_in},
                                        extra_reads=[v.name for v in carry_out])
              if n not in inner]
    outs = [parent.create_var(name=program.unique_name("while_out"), shape=s, dtype=v.dtype,
                              stop_gradient=v.stop_gradient and o.stop_gradient)
            for s, v, o in zip(shapes, inits, carry_out)]
    parent.append_op("while", {"Condition": [pred0.name], "X": [v.name for v in inits], "Params": params},
                     {"Out": [v.name for v in outs]},
                     {"sub_block": blk, "carry_in": [v.name for v in carry_in],
                      "carry_out": [v.name for v in carry_out], "cond_out": pred.name})
    return list(unflatten(tree, outs))
