"""Gradients of ``cond`` and ``while``, built with the same ``backward_ops`` as everything else.

A branch or loop body's values exist only while its op runs, so each backward
sub-block first *recomputes* the forward sub-block (a copy of its ops, minus
prints, asserts and persistable writes, also inside nested branches and loop
bodies: the forward run did those once) and then holds that copy's backward:

- ``cond`` -> a ``cond`` on the same predicate whose branches are the backward of each
  branch (zeros via ``fill_constant_like`` where a branch does not touch an input).
  When a branch holds random ops (dropout), the forward op also outputs 'RngState'
  (the generator state at branch entry) and the gradient's ``cond`` reads it, so the
  recomputed branch draws the forward's masks.
- ``while`` -> the forward op also outputs 'StepScopes' (each iteration's carries); a
  ``while_grad`` op replays the steps in reverse, feeding each step's carries, the
  Params and the carries' grads to the body's backward block, accumulating the
  Params' grads over the iterations.
"""
import numpy as np

from ..dispatch import apply
from ..framework import Block
from ..random import generator_guard
from ..registry import GRAD_ONLY, def_op
from .backward import backward_ops, building, current_requires
from .blocks import external_reads, has_random_ops, has_side_effect, is_float_var, new_block
from .passes.effects import side_effect_inside
from .program_tools import append_copy, copy_vars_into


def grad_block(parent, fwd, targets, wrt, declare_seeds=False):
    """A block (child of ``parent``) recomputing ``fwd`` then back-propagating ``targets``.

    ``targets``: list of (name in fwd, grad Variable or None); with ``declare_seeds`` the
    grads are fresh vars declared in the new block (inputs of the compiled block).
    Returns (block, [grad Variable or None per wrt name], [seed names]).
    """
    program = parent.program
    gb = _recompute_copy(fwd, parent.idx)
    seeds, seed_names = {}, []
    for name, g in targets:
        if declare_seeds:
            v = gb.var(name)
            g = gb.create_var(name=program.unique_name(f"{name}@GRAD_in"), shape=v.shape, dtype=v.dtype,
                              stop_gradient=False)
            seed_names.append(g.name)
        seeds.setdefault(name, []).append(g)
    res = backward_ops(gb, list(gb.ops), seeds, wrt, nested=True)
    return gb, [res[n] for n in wrt], seed_names


def _recompute_copy(fwd, parent_idx):
    """A new block (child of ``parent_idx``) with ``fwd``'s ops minus those a recomputation must not
    repeat (prints, asserts, persistable writes: the forward did them), at any depth: a nested
    ``cond``/``while`` whose body has such ops gets a copy of its body without them."""
    blk = new_block(fwd.program, parent_idx)
    copy_vars_into(blk, fwd.vars.values())
    for op in fwd.ops:
        if has_side_effect(fwd, op):
            continue
        attrs = dict(op.attrs)
        for k, v in attrs.items():
            if isinstance(v, Block) and side_effect_inside(v):
                attrs[k] = _recompute_copy(v, blk.idx)
        append_copy(blk, op, attrs)
    return blk


def _grad_home(op):
    """The block a gradient rule appends to: the one being built (``building``), ``op``'s own block,
    or a branch or loop body under it whose ``rt.grad`` differentiates ``op`` (grad_scope.py): the
    gradient is wanted there only, and its seeds live there."""
    return op.block.program.current_block()


def _zeros_in(block, name):
    with building(block):
        return apply("fill_constant_like", block.var(name), value=0.0)


def _wanted(block, names):
    req = current_requires()
    return [n for n in dict.fromkeys(names) if is_float_var(block._find_var(n)) and (req is None or n in req)]


def cond_grad(ctx):
    """The gradient rule of ``cond``: a ``cond`` on the same predicate whose branches recompute and differentiate
    each forward branch."""
    op = ctx.op
    if op is None:
        raise NotImplementedError("cond gradients exist only in static Programs (eager cond runs Python)")
    block, a = _grad_home(op), op.attrs
    ins = op.input("Input")
    wrt = _wanted(block, ins)
    if not wrt:
        return [None, [None] * len(ins)]
    pairs = [(i, g) for i, g in enumerate(ctx.out_grads[0] or []) if g is not None]
    # an input's gradient summed so far seeds its sum in each branch, which adds the branch's terms
    # onto it one by one as eager autograd does (a branch without any gives it back as it is)
    running = [(n, ctx.running[n]) for n in wrt if n in ctx.running]
    ctx.totals.update(n for n, _ in running)
    tb, tg, _ = grad_block(block, a["true_block"], [(a["true_outs"][i], g) for i, g in pairs] + running, wrt)
    fb, fg, _ = grad_block(block, a["false_block"], [(a["false_outs"][i], g) for i, g in pairs] + running, wrt)
    keep = [j for j in range(len(wrt)) if tg[j] is not None or fg[j] is not None]
    t_outs, f_outs, outs = [], [], []
    for j in keep:
        t = tg[j] if tg[j] is not None else _zeros_in(tb, wrt[j])
        f = fg[j] if fg[j] is not None else _zeros_in(fb, wrt[j])
        t_outs.append(t.name)
        f_outs.append(f.name)
        src = block.var(wrt[j])
        outs.append(block.create_var(name=block.program.unique_name(f"{wrt[j]}@GRAD_cond"), shape=src.shape,
                                     dtype=src.dtype, stop_gradient=False))
    if not keep:
        return [None, [None] * len(ins)]
    inputs = list(dict.fromkeys(external_reads(tb, extra_reads=t_outs) + external_reads(fb, extra_reads=f_outs)))
    g_ins = {"Cond": op.input("Cond"), "Input": inputs}
    rng = _rng_state(op)
    if rng:
        g_ins["RngState"] = rng
    block.append_op("cond", g_ins, {"Out": [v.name for v in outs]},
                    {"true_block": tb, "false_block": fb, "true_outs": t_outs, "false_outs": f_outs})
    by_name = {wrt[j]: v for j, v in zip(keep, outs)}
    seen, grads = set(), []
    for n in ins:  # a name listed twice gets its gradient once
        grads.append(by_name.get(n) if n not in seen else None)
        seen.add(n)
    return [None, grads]


def _rng_state(op):
    """[name] of the generator state a recomputation of ``op``'s branches must start from, or [].

    A ``cond`` that itself replays (a gradient's) reuses its input; one with random ops
    gets an 'RngState' output, added only now that a gradient needs it."""
    if op.inputs.get("RngState"):
        return op.input("RngState")
    a = op.attrs
    if not (has_random_ops(a["true_block"]) or has_random_ops(a["false_block"])):
        return []
    if not op.outputs.get("RngState"):
        program = op.block.program
        sv = op.block.create_var(name=program.unique_name("cond_rng"), shape=(), dtype="float32",
                                 kind="rng_state")
        op.outputs["RngState"] = [sv.name]
        program._version += 1
    return op.output("RngState")


def while_grad(ctx):
    """The gradient rule of ``while``: a ``while_grad`` op that walks the saved iterations (StepScopes) backward."""
    op = ctx.op
    if op is None:
        raise NotImplementedError("while gradients exist only in static Programs (eager while_loop runs Python)")
    block, a = _grad_home(op), op.attrs
    program = block.program
    sub = a["sub_block"]
    carry_in, carry_out = list(a["carry_in"]), list(a["carry_out"])
    xs, outs, params = op.input("X"), op.output("Out"), op.input("Params")
    req = current_requires()
    fl = [i for i, n in enumerate(carry_in) if is_float_var(sub.var(n))]
    wrt_p = _wanted(block, params)
    if not wrt_p and not any(req is None or xs[i] in req for i in fl):
        return [None, [None] * len(xs), [None] * len(params)]
    if "StepScopes" not in op.outputs:
        sv = op.block.create_var(name=program.unique_name("while_steps"), shape=(), dtype="float32", kind="steps")
        op.outputs["StepScopes"] = [sv.name]
        program._version += 1
    # each Param's gradient is a seed of the body's backward too: every step adds its terms onto the
    # sum so far, in eager's order (see _build_while_grad), starting from ctx.running's sum if any;
    # so is a carry's when its initial value has such a sum (the first step adds onto it)
    running = [p for p in wrt_p if p in ctx.running]
    taken, xrun = set(running), []
    for k, i in enumerate(fl):
        if xs[i] in ctx.running and xs[i] not in taken:
            taken.add(xs[i])
            xrun.append(k)
    gb, grads, seeds = grad_block(block, sub, [(carry_out[i], None) for i in fl] + [(p, None) for p in wrt_p]
                                  + [(carry_in[fl[k]], None) for k in xrun],
                                  [carry_in[i] for i in fl] + wrt_p, declare_seeds=True)
    ctx.totals.update(running + [xs[fl[k]] for k in xrun])
    og = ctx.out_grads[0] or [None] * len(outs)
    og_names = []
    with building(block):
        for i in fl:
            g = og[i] if og[i] is not None else apply("fill_constant_like", block.var(outs[i]), value=0.0)
            og_names.append(g.name)
    x_grads = [block.create_var(name=program.unique_name(f"{xs[i]}@GRAD_while"), shape=block.var(xs[i]).shape,
                                dtype=block.var(xs[i]).dtype, stop_gradient=False) for i in fl]
    p_grads = [block.create_var(name=program.unique_name(f"{p}@GRAD_while"), shape=block.var(p).shape,
                                dtype=block.var(p).dtype, stop_gradient=False) for p in wrt_p]
    block.append_op(
        "while_grad",
        {"Out@GRAD": og_names, "Params": params, "StepScopes": op.output("StepScopes"),
         "Params@GRAD_in": [ctx.running[p].name for p in running],
         "X@GRAD_in": [ctx.running[xs[fl[k]]].name for k in xrun]},
        {"X@GRAD": [v.name for v in x_grads], "Params@GRAD": [v.name for v in p_grads]},
        {"sub_block": sub, "grad_block": gb, "carry_in": carry_in, "params": params, "float_carries": fl,
         "seed_names": seeds, "grad_outs": [g.name if g is not None else "" for g in grads],
         "grad_params": wrt_p, "running_params": running, "running_carries": xrun})
    # one gradient per position: a name entering as two carries (`v = y` before the loop) gets
    # both, summed by the caller's backward pass
    xg = [None] * len(xs)
    for k, i in enumerate(fl):
        xg[i] = x_grads[k]
    pg_by = dict(zip(wrt_p, p_grads))
    seen, pg = set(), []
    for p in params:
        pg.append(pg_by.get(p) if p not in seen else None)
        seen.add(p)
    return [None, xg, pg]


def _build_while_grad(op, compiler):
    a = op.attrs
    gb = a["grad_block"]
    fl, carry_in, params = a["float_carries"], a["carry_in"], a["params"]
    grad_outs = a["grad_outs"]
    present = [n for n in grad_outs if n]
    nfl = len(fl)
    pidx = [params.index(p) for p in a["grad_params"]]
    fn = None  # compiled when a backward first replays a step, as a branch on first entry: a loop
    # no run entered (or a backward never run) costs nothing

    running, xrun = list(a.get("running_params", ())), list(a.get("running_carries", ()))

    def run_while_grad(ogs, ps, steps_list, sums=(), xsums=()):
        nonlocal fn
        if fn is None and steps_list[0]:
            fn = compiler.compile(gb, list(carry_in) + list(params) + list(a["seed_names"]), present,
                                  name=f"while_grad_body{gb.idx}")
        g = list(ogs)
        # each Param's gradient so far: the sum the ops after the loop gave, then each replayed step
        # adds its terms onto it, latest step and latest op first, as eager autograd sums them. A step
        # before any sum starts from -0.0, which adding leaves every value bitwise as it is.
        gp = [None] * len(pidx)
        for p, v in zip(running, sums):
            gp[a["grad_params"].index(p)] = v
        steps = steps_list[0]
        for s, (xs, rng_state) in enumerate(reversed(steps)):
            seeds = [v if v is not None else np.full_like(ps[j], -0.0) for v, j in zip(gp, pidx)]
            first = s == len(steps) - 1  # the first iteration: its carries are the loop's inputs
            seeds += [xsums[j] if first else np.full_like(xs[fl[k]], -0.0) for j, k in enumerate(xrun)]
            if rng_state is not None:  # replay the step's random draws (dropout masks), in this thread only
                with generator_guard(rng_state):
                    res = iter(fn(*xs, *ps, *g, *seeds))
            else:
                res = iter(fn(*xs, *ps, *g, *seeds))
            new_g = []
            for k, i in enumerate(fl):
                new_g.append(next(res) if grad_outs[k] else np.zeros_like(xs[i]))
            gp = [next(res) if grad_outs[nfl + k] else seeds[k] for k in range(len(pidx))]
            g = new_g
        if not steps:  # no iteration: the input is the output, its sum so far then the output's gradient
            for j, k in enumerate(xrun):
                g[k] = xsums[j] + g[k]
        gp = [v if v is not None else np.zeros_like(ps[j]) for v, j in zip(gp, pidx)]
        return g, gp
    return run_while_grad


def _while_grad_infer(ogs, params, steps, sums=(), xsums=(), **attrs):
    names = list(attrs["params"])
    return list(ogs), [params[names.index(p)] for p in attrs["grad_params"]]


def_op("while_grad", ["Out@GRAD*", "Params*", "StepScopes*", "Params@GRAD_in*", "X@GRAD_in*"],
       ["X@GRAD*", "Params@GRAD*"],
       attrs={"sub_block": None, "grad_block": None, "carry_in": [], "params": [], "float_carries": [],
              "seed_names": [], "grad_outs": [], "grad_params": [], "running_params": [], "running_carries": []},
       build_kernel=_build_while_grad, infer=_while_grad_infer, no_onnx=GRAD_ONLY,
       doc="Replay a while loop's saved steps in reverse through the body's backward block.")
