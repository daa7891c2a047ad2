"""A compiled training step's update written out for its plan (``plan_updates``): SGD and Adam.

``train_update`` (``runtime.ops.train_ops``) hands the step's gradients to the optimizer's
general update, which on every call walks the parameter groups, tests each parameter and
gradient, looks up learning rates, decays and the flat buffers, and only then runs the
arithmetic: for a small model that walk costs more than the arithmetic.  Here the walk is
done once, when the plan first runs, and its outcome written as straight-line Python::

    if <the state the walk saw still holds>:       # identities and values, tested inline
        g0 *= lr; p0 -= g0; ...                      # SGD: the same ops the rule runs
    else:
        <the general update>

The test (the "key") covers everything the general update reads to choose its route: no
gradient clipping, the parameter groups (the list, each dict, each params list and its
members), each group's weight decay (the same object, known to be zero) and learning rate,
every parameter's ``.grad`` (None) and ``stop_gradient``, per-parameter learning rates
(SGD), each gradient's dtype and shape against its parameter's array, and for Adam the flat
buffers' views (what ``FlatGroup.current`` tests) and equal beta powers.  When it fails the
general update runs (same results); the code is written anew at most ``_REBUILDS`` times.

The arithmetic is the rule's own: SGD the ``p -= lr * g`` / ``g *= lr; p -= g`` of
``SGD._apply_given`` (the scale made as it makes it), Adam its ``_adam_step`` on the group's
flat buffers, so both stay bitwise equal to eager.
"""
import numpy as np

from ..static.backends.base import _EPOCH
from .algorithms import SGD, Adam
from .fused import trained
from ..ops.train_ops import sync_params

_REBUILDS = 4  # a state the key keeps refusing stays on the general update after this many writes
_NO_ATTRS = {}  # the per-parameter attrs of a tensor without ``optimize_attr`` (read only)


def plan_kernel(opt, grad_params, optimizer_handle, owned, general):
    """A ``train_update(grads, params)`` for the plan, or None when ``opt``'s rule has no written form.

    ``grad_params``: the parameters of the gradients, in order; ``optimizer_handle.params``: the
    parameters whose arrays the op returns; ``owned``: indices of gradients the update may
    overwrite; ``general``: the kernel's general form (same signature)."""
    if type(opt) not in (SGD, Adam):  # a subclass may change any step of the walk
        return None
    state = {"fn": None, "builds": 0}

    def fallback(grads, params):
        state["fn"] = None  # write again at the next call (the state may have settled)
        return general(grads, params)

    def train_update(grads, params):
        sync_params(optimizer_handle.params, params)
        fn = state["fn"]
        if fn is None:
            if state["builds"] >= _REBUILDS:
                return general(grads, params)
            state["builds"] += 1
            fn = state["fn"] = _write(opt, grad_params.params, optimizer_handle.params, owned, fallback) or fallback
        return fn(grads, params)
    return train_update


class _Src:
    """Generated lines and the objects they read (as globals of the function)."""

    def __init__(self):
        self.names, self.lines = {}, []

    def ref(self, value, hint="K"):
        name = f"{hint}{len(self.names)}"
        self.names[name] = value
        return name

    def add(self, line):
        self.lines.append("    " + line)

    def miss(self, test):
        self.add(f"if {test}: return MISS(grads, params)")


def _write(opt, grad_params, out_params, owned, fallback):
    """The written update for the current state of ``opt``, or None when its general update would
    take a route not written here (clipping, decay, a repeated parameter, Adam per parameter)."""
    if opt._grad_clip is not None:
        return None
    groups = opt._param_groups
    everyone = [p for g in groups for p in g["params"]]
    if len({id(p) for p in everyone}) != len(everyone):
        return None  # a parameter in two places: updated twice by the general walk
    index = {id(p): k for k, p in enumerate(grad_params)}
    s = _Src()
    s.add(f"o = {s.ref(opt, 'OPT')}")
    s.miss("o._grad_clip is not None")
    s.miss(f"o._param_groups is not {s.ref(groups, 'GS')} or len(o._param_groups) != {len(groups)}")
    plan = []  # per group: (group name, [(param name, param, grad index or None)])
    for gi, group in enumerate(groups):
        gname = s.ref(group, "G")
        s.miss(f"o._param_groups[{gi}] is not {gname}")
        params = group["params"]
        plist = s.ref(params, "PL")
        s.miss(f"{gname}['params'] is not {plist} or len({plist}) != {len(params)}")
        if any(key in group for key in opt._group_options):
            return None  # the group's own betas or epsilon: the general walk sets them for it
        wd, glr = group["weight_decay"], group["learning_rate"]
        if not (wd is None or (type(wd) in (int, float) and wd == 0)) or type(glr) not in (int, float):
            return None  # decay: the general walk adds it (SGD per parameter, Adam to the flat gradient)
        s.miss(f"{gname}['weight_decay'] is not {s.ref(wd, 'WD')} or {gname}['learning_rate'] is not {s.ref(glr, 'GLR')}")
        members = []
        if any(getattr(p, "regularizer", None) is not None for p in params):
            return None  # a parameter's own decay: the general walk adds it
        for k, p in enumerate(params):
            pname = s.ref(p, "P")
            # a decay of its own given after this was written: the general walk adds it
            s.miss(f"{plist}[{k}] is not {pname} or {pname}.grad is not None"
                   f" or getattr({pname}, 'regularizer', None) is not None")
            if p.stop_gradient:  # the general walk skips it (fused.trained): BatchNorm's statistics
                s.miss(f"not {pname}.stop_gradient")
                continue
            gk = index.get(id(p))
            if gk is not None:
                s.miss(f"{pname}.stop_gradient")
            members.append((pname, p, gk))
        plan.append((gname, group, members))
    writer = _sgd if type(opt) is SGD else _adam
    if not writer(s, opt, plan, owned):
        return None
    s.add("o._step_count += 1")
    for gname, _, members in plan:
        for pname, _, gk in members:
            if gk is not None:
                s.add(f"{pname}._version = getattr({pname}, '_version', 0) + 1")
    s.add("EPOCH[0] += 1")  # weights_changed()
    outs = ", ".join(f"{s.ref(p, 'Q')}._value" for p in out_params)
    s.add(f"return [{outs}]")
    source = "def train_update(grads, params):\n" + "\n".join(s.lines) + "\n"
    namespace = dict(s.names, MISS=fallback, EPOCH=_EPOCH, NO_ATTRS=_NO_ATTRS, np=np)
    exec(compile(source, f"<plan update of {type(opt).__name__}>", "exec"), namespace)  # noqa: S102  (our code)
    fn = namespace["train_update"]
    fn.source = source
    return fn


def _base_lr(s):
    """``base = opt.get_lr()`` (a plain float read as it is: ``float(lr)`` is itself)."""
    s.add("base = o._learning_rate")
    s.add("if base.__class__ is not float: base = o.get_lr()")


def _sgd(s, opt, plan, owned):
    """``SGD._apply_given``'s update, parameter by parameter: each scale made as it makes it
    (``np.asarray(lr, dtype)``), cached while ``lr`` compares equal and is not zero (a -0.0 would
    compare equal to 0.0 with other bits)."""
    _base_lr(s)
    body = []
    for gi, (gname, group, members) in enumerate(plan):
        s.add(f"glr{gi} = base * {gname}['learning_rate']")
        for pname, p, gk in members:
            if gk is None:
                continue
            dt = p._value.dtype
            g, v, c = f"g{gk}", f"v{gk}", s.ref([None, None], "C")
            s.add(f"{g} = grads[{gk}]; {v} = {pname}._value")
            s.miss(f"{v}.dtype is not {s.ref(dt, 'D')} or {g}.dtype is not {v}.dtype or {g}.shape != {v}.shape"
                   f" or not {v}.flags.writeable")
            s.add(f"lr = glr{gi} * (getattr({pname}, 'optimize_attr', None) or NO_ATTRS).get('learning_rate', 1.0)")
            s.add(f"if lr != {c}[0] or not lr: {c}[0] = lr; {c}[1] = np.asarray(lr, {v}.dtype)")
            body += [f"{g} *= {c}[1]; {v} -= {g}"] if gk in owned else [f"{v} -= {c}[1] * {g}"]
    for line in body:  # every test passed: the updates, in the general walk's order
        s.add(line)
    return True


def _adam(s, opt, plan, owned):
    """``_apply_grads``' flat route for Adam: the group's FlatGroup (made now as the general walk
    makes it), its gradient gathered, ``_adam_step`` over the flat buffers."""
    _base_lr(s)
    tables = opt._accumulators
    s.miss(f"o._accumulators is not {s.ref(tables, 'ACC')}")
    tnames = {}
    for name in opt._flat_elementwise + opt._flat_scalars:
        tnames[name] = s.ref(tables[name], "T")
        s.miss(f"o._accumulators[{name!r}] is not {tnames[name]}")
    steps = []
    for gi, (gname, group, members) in enumerate(plan):
        if any(gk is None for _, _, gk in members):
            return False  # a parameter without a gradient: the general walk goes per parameter
        flat = opt._flat_group(gi, trained(group["params"]))
        if flat is None or not flat.current() or not all(flat.uniform(n) for n in opt._flat_scalars):
            return False
        fname = s.ref(flat, "F")
        s.miss(f"o._flat.get({gi}) is not {fname}")
        for k, (pname, p, gk) in enumerate(members):
            s.miss(f"{pname}._value is not {s.ref(flat.views[k], 'V')}")
            # a learning rate of its own, given after the flat group was made (FlatGroup.current)
            s.miss(f"(getattr({pname}, 'optimize_attr', None) or NO_ATTRS).get('learning_rate', 1.0) != 1.0")
            s.miss(f"grads[{gk}].dtype is not {s.ref(flat.flat.dtype, 'D')} or grads[{gk}].shape != {flat.shapes[k]!r}")
            for name, (_, views) in flat.acc.items():
                s.miss(f"{tnames[name]}.get({pname}.name) is not {s.ref(views[k], 'A')}")
        m, v, b1, b2 = (s.ref(flat.buffer(n), "B") for n in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"))
        for b in (b1, b2):  # FlatGroup.uniform: every parameter at the same step
            s.add(f"u = {b}.tolist()")
            s.miss("u.count(u[0]) != len(u)")
        gather = ", ".join(f"grads[{gk}]" for _, _, gk in members)
        buf = s.ref(flat.grad, "GB")
        steps += [f"np.concatenate(({gather},), axis=None, out={buf}, casting='same_kind')",
                  f"{fname}.flat -= o._adam_step({m}, {v}, {buf}, {b1}, {b2}, base * {gname}['learning_rate'], spare=True)"]
    for line in steps:  # every test passed: gather and update each group, in the general walk's order
        s.add(line)
    return True
