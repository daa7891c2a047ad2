"""``Optimizer``: the shared machinery of every update rule (eager, numpy, in place).

Updates are fused in place: each rule computes its step into one temporary and
subtracts it from the parameter's array (``p -= step``), the same float
arithmetic as ``p - step`` without a second full-size array.

``step()`` reads each trainable parameter's ``.grad`` (parameters without a
gradient are skipped), clips, adds L2 weight decay, and hands the numpy arrays
to the subclass's ``_update``, which writes the parameter's ``_value`` in place:
a static Program bound to the parameter sees the new value at its next run.

State (``state_dict``) is Paddle-shaped: one entry per accumulator named
``{param.name}_{accumulator}_0`` (e.g. ``linear_0.w_0_moment1_0``), plus
``global_step`` and ``LR_Scheduler`` when a scheduler drives the learning rate.
"""
import sys
import warnings

import numpy as np

from ..static.backends import weights_changed
from ..tensor import Tensor, bump_version
from ..trace_state import _mode, converting
from ..regularizer import L1Decay, L2Decay
from .fused import FlatGroup, fusable, trained
from .lr import LRScheduler
from collections.abc import Callable, Iterable


def _decay_coeff(weight_decay):
    """The L2 coefficient of a group's ``weight_decay`` (an L1Decay is added per parameter: 0 here)."""
    if weight_decay is None or isinstance(weight_decay, L1Decay):
        return 0.0
    if isinstance(weight_decay, L2Decay):
        return weight_decay.coeff
    if isinstance(weight_decay, (int, float)):
        return float(weight_decay)
    raise TypeError(f"weight_decay must be a float, L2Decay or L1Decay, got {type(weight_decay).__name__}")


def _user_level():
    """The ``stacklevel`` of the first caller outside this package (the user's ``opt.step()`` line)."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("runtime."):
        level, frame = level + 1, frame.f_back
    return level


class Optimizer:
    """Base of the optimizers: holds parameter groups, accumulators and the learning rate (a float or LRScheduler).

    ``parameters`` is a list of parameters or of ``{"params": [...], ...}`` groups; ValueError when missing.
    Subclasses define ``_update`` for one parameter.
    """

    _accumulator_names = ()
    # Accumulators a fused update keeps in one flat buffer per group: elementwise (the
    # parameters' shape) and scalar (shape (1,) per parameter).  A rule with a fused
    # form defines ``_fused_update``.
    _flat_elementwise = ()
    _flat_scalars = ()
    # The options a parameter group may set for itself (Paddle's ``_update_param_group``): the
    # group's key -> the attribute the update rule reads; a group without the key takes the
    # optimizer's own value
    _group_options = {}

    def __init__(self, learning_rate: float | LRScheduler = 0.001,
                 parameters: Iterable[Tensor] | Iterable[dict] | None = None,
                 weight_decay: float | L2Decay | None = None, grad_clip: Callable | None = None,
                 name: str | None = None) -> None:
        if parameters is None:
            raise ValueError(f"{type(self).__name__} needs `parameters` (e.g. model.parameters()) in dynamic mode")
        if not isinstance(learning_rate, (int, float, LRScheduler)):
            raise TypeError(f"learning_rate must be a float or an LRScheduler, got {type(learning_rate).__name__}")
        self._learning_rate = learning_rate
        self._grad_clip = grad_clip
        self._default_decay = weight_decay
        self._param_groups = []
        params = list(parameters)
        if params and isinstance(params[0], dict):
            for group in params:
                self._add_param_group(group)
        else:
            self._add_param_group({"params": params})
        self._accumulators = {name: {} for name in self._accumulator_names}
        self._step_count = 0
        self._flat = {}  # group index -> FlatGroup (or None: not fusable)
        # ids of parameters an update has seen a gradient for: Paddle's clear_grad() leaves them a zero
        # gradient, which Paddle's next step still applies (momentum, decay); here they have none
        self._had_grad, self._groups_seen = set(), set()
        self._skip_warned = False

    def _add_param_group(self, group):
        params = list(group["params"])
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer parameters must be Tensors/Parameters, got {type(p).__name__}")
        full = dict(group)
        full["params"] = params
        full.setdefault("weight_decay", self._default_decay)
        full.setdefault("learning_rate", 1.0)
        self._param_groups.append(full)

    @property
    def _parameter_list(self):
        return [p for group in self._param_groups for p in group["params"]]

    # -- learning rate -------------------------------------------------------------
    def get_lr(self):
        """The current learning rate as a float (the scheduler's value if there is one).

        While a function is converted: a value of it read when the Program runs (``train_step.record_lr_read``)."""
        if converting():
            from ..static.train_step import record_lr_read  # noqa: PLC0415  (static imports optimizers' users)
            return record_lr_read(self._eager_lr, f"learning rate of {type(self).__name__}")
        return self._eager_lr()

    def _global_learning_rate(self, program=None):
        """The current learning rate as a 0-D float32 Tensor (Paddle's semi-private accessor, which
        training scripts call to log it)."""
        return Tensor(np.asarray(self.get_lr(), dtype=np.float32))

    def _eager_lr(self):
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else float(lr)

    def set_lr(self, value):
        """Set a fixed learning rate; RuntimeError when an LRScheduler drives it.

        While a function is converted: a ``set_learning_rate`` op, run at every call (``train_step``)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("set_lr() cannot override an LRScheduler; call scheduler.step() instead")
        if converting():
            from ..static.train_step import record_set_lr  # noqa: PLC0415
            record_set_lr(self, value)
            return
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        """Let ``scheduler`` (an LRScheduler, else TypeError) drive the learning rate."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"expected an LRScheduler, got {type(scheduler).__name__}")
        self._learning_rate = scheduler

    # -- the update ------------------------------------------------------------------
    def _acc(self, name, p, init=0.0, shape=None, dtype=None):
        table = self._accumulators[name]
        arr = table.get(p.name)
        if arr is None:
            arr = np.full(p._value.shape if shape is None else shape, init, dtype=dtype or p._value.dtype)
            table[p.name] = arr
        return arr

    def _flat_group(self, index, params):
        """The group's FlatGroup, rebuilt when a parameter or accumulator array was replaced."""
        flat = self._flat.get(index, False)
        if flat is None:
            return None
        if flat is False or not flat.current() or not flat.holds(params):
            if not fusable(params):
                self._flat[index] = None
                return None
            flat = FlatGroup(params, self._accumulators, self._flat_elementwise, self._flat_scalars,
                             lambda name, p: self._acc(name, p, **self._acc_spec(name)))
            self._flat[index] = flat
        return flat

    def _fusable_now(self, group):
        return type(self)._fused_update is not Optimizer._fused_update

    def step(self):
        """Update every parameter that has a gradient, after gradient clipping and weight decay.

        While a Program is being built (inside a converted function) this appends the update
        to it instead (``runtime.static.train_step``): it runs at every call of the Program."""
        if _mode.static:
            from ..static.train_step import record_step  # noqa: PLC0415  (static imports optimizers' users)
            record_step(self)
            return
        self._eager_step()

    def _eager_step(self):
        self._apply_grads(None)

    def _grads_empty(self):
        """Whether no parameter of this optimizer holds a ``.grad``."""
        for group in self._param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    return False
        return True

    def _apply_given(self, grads, spare=frozenset()):
        """``_apply_grads(grads)`` for gradients handed over by a compiled training step (never in
        ``.grad``); a rule may take a shorter path to the same values.  ``spare``: ids of the
        parameters whose gradient array nothing else holds (the rule may overwrite it)."""
        self._apply_grads(grads)  # ``spare`` unused: the fused path overwrites only its own gather buffer

    def _apply_grads(self, grads):
        """The update: ``grads`` maps ``id(param)`` to its gradient array; None reads each ``.grad``."""
        base_lr = self.get_lr()
        self._step_count += 1
        own = {attr: getattr(self, attr) for attr in self._group_options.values()}
        try:
            for index, group in enumerate(self._param_groups):
                for key, attr in self._group_options.items():
                    setattr(self, attr, group.get(key, own[attr]))
                self._apply_group(index, group, grads, base_lr)
        finally:
            for attr, value in own.items():
                setattr(self, attr, value)
        weights_changed()  # parameters were written in place: copies held by backends are stale

    def _apply_group(self, index, group, grads, base_lr):
        """The update of one parameter group (its options set on self by ``_apply_grads``)."""
        params = trained(group["params"])
        if grads is None:
            pairs = [(p, p.grad._value) for p in params
                     if p.grad is not None and not p.stop_gradient]
        else:
            pairs = [(p, grads[id(p)]) for p in params if id(p) in grads and not p.stop_gradient]
        if len(pairs) != len(params):
            self._note_skipped(params, pairs)
        elif index not in self._groups_seen:  # every parameter of the group took a gradient
            self._groups_seen.add(index)
            self._had_grad.update(map(id, params))
        if self._grad_clip is not None:
            pairs = self._grad_clip(pairs)
        coeff = self._group_decay(group)
        # an L1Decay of the group, or a parameter's own regularizer (which replaces the group's
        # decay for it), is added per parameter
        l1 = group["weight_decay"] if isinstance(group["weight_decay"], L1Decay) else None
        if len(pairs) == len(params) and l1 is None and self._fusable_now(group):
            flat = self._flat_group(index, params)
            g = None if flat is None else flat.gather([g for _, g in pairs])
            if g is not None:  # every gradient has its parameter's shape (else the loop below raises)
                if self._grad_rescale != 1.0:
                    g = g * np.asarray(self._grad_rescale, g.dtype)
                if coeff:
                    g = g + np.asarray(coeff, g.dtype) * flat.flat
                self._fused_update(flat, g, base_lr * group["learning_rate"], group)
                for p in params:
                    bump_version(p)  # as below: graphs recorded before this step are stale
                return
        for p, g in pairs:
            if g.shape != p._value.shape:
                raise ValueError(f"gradient of '{p.name}' has shape {list(g.shape)}, parameter {p.shape}")
            own = getattr(p, "regularizer", None) or l1
            rescale = self._grad_rescale
            if rescale != 1.0 and not isinstance(own, L2Decay):
                # Paddle's momentum kernel scales the gradient first and adds an L2 term after
                # it; any other regularizer's term was added before, and is scaled with it
                g = (g if own is None else g + own.term(p._value, g.dtype)) * np.asarray(rescale, g.dtype)
                own = None
            elif rescale != 1.0:
                g = g * np.asarray(rescale, g.dtype)
            if own is not None:
                g = g + own.term(p._value, g.dtype)
            elif coeff:
                g = g + np.asarray(coeff, g.dtype) * p._value
            lr = base_lr * group["learning_rate"] * getattr(p, "optimize_attr", {}).get("learning_rate", 1.0)
            self._update(p, g.astype(p._value.dtype, copy=False), lr, group)
            bump_version(p)  # a graph recorded before this step can no longer give its gradient

    # Momentum's ``rescale_grad``: the factor of the gradient before the L2 decay is added to it
    _grad_rescale = 1.0

    def _group_decay(self, group):
        return _decay_coeff(group["weight_decay"])

    def _update(self, p, g, lr, group):
        raise NotImplementedError

    def _fused_update(self, flat, g, lr, group):
        """The update of every parameter of a group at once (``flat.flat``, gradient ``g``).  ``g`` is the
        group's own gradient buffer (``FlatGroup.gather``) or a sum made from it: the rule may overwrite it."""
        raise NotImplementedError

    @staticmethod
    def _write_sub(p, step):
        """``p -= step`` in place (same arithmetic as ``p - step``); False when it cannot be done in place."""
        value = p._value
        if value.flags.writeable and value.dtype == step.dtype and value.shape == step.shape:
            value -= step
            return True
        return False

    @staticmethod
    def _write(p, new):
        if p._value.flags.writeable and p._value.dtype == new.dtype:
            p._value[...] = new
        else:
            p._value = np.array(new, dtype=p._value.dtype)

    def _note_skipped(self, params, pairs):
        """Warn once when a parameter that had a gradient in an earlier step has none now: Paddle's
        ``clear_grad()`` zeroes gradients, so Paddle would still move it (momentum, weight decay)."""
        got = {id(p) for p, _ in pairs}
        self._had_grad.update(got)
        if self._skip_warned:
            return
        skipped = [p.name for p in params if id(p) not in got and id(p) in self._had_grad]
        if skipped:
            self._skip_warned = True
            warnings.warn(f"{type(self).__name__}.step(): parameter(s) {skipped[:3]} had a gradient in an earlier "
                          "step but have none now, so this step leaves them as they are. Paddle's clear_grad() "
                          "zeroes gradients instead, and its step would still apply momentum and weight decay to "
                          "them; results differ from Paddle's from here on (shown once)", stacklevel=_user_level())

    def clear_grad(self, set_to_zero=True):
        """Clear every parameter's gradient (to None: see ``_note_skipped`` for how that differs from
        Paddle's zeroing). Also ``clear_gradients``.

        Inside a converted function it appends the clearing to the Program being built."""
        if not set_to_zero:  # Paddle's set_to_zero=False: None there too, and its step skips them
            self._had_grad.clear()
            self._groups_seen.clear()
        if _mode.static:
            from ..static.train_step import record_clear_grad  # noqa: PLC0415
            record_clear_grad(self)
            return
        self._eager_clear_grad()

    def _eager_clear_grad(self):
        for group in self._param_groups:
            for p in group["params"]:
                p.grad = None

    clear_gradients = clear_grad

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Paddle's dygraph ``minimize``: the update of ``step()`` from the gradients already in
        ``.grad`` (``loss.backward(); opt.minimize(loss)``, as Paddle documents it).  It does not run
        the backward itself: doing so would add the gradients a second time.  ``parameters`` (a list
        of parameters) and ``no_grad_set`` (parameters or their names) narrow which parameters it
        updates, eagerly; inside a converted function they must be None.  Returns ``(None, None)``."""
        if parameters is None and no_grad_set is None:
            self.step()
            return None, None
        if _mode.static:
            raise NotImplementedError("opt.minimize(loss, parameters=..., no_grad_set=...) inside a converted "
                                      "function: only minimize(loss) is supported there; the optimizer's own "
                                      "parameters are updated")
        chosen = self._parameter_list if parameters is None else list(parameters)
        skip = {x if isinstance(x, str) else id(x) for x in (no_grad_set or ())}
        self._apply_grads({id(p): p.grad._value for p in chosen
                           if p.grad is not None and id(p) not in skip and p.name not in skip})
        return None, None

    # -- state -------------------------------------------------------------------------
    def state_dict(self):
        """The accumulators (``{param}_{acc}_0`` Tensors), ``global_step`` and the scheduler state, for ``rt.save``."""
        state = {}
        for acc, table in self._accumulators.items():
            for pname, arr in table.items():
                state[f"{pname}_{acc}_0"] = Tensor(arr.copy())
        state["global_step"] = self._step_count
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Restore accumulators, step count and scheduler state from ``state_dict()``. Also ``set_dict``."""
        if isinstance(self._learning_rate, LRScheduler) and "LR_Scheduler" in state_dict:
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        self._step_count = int(state_dict.get("global_step", self._step_count))
        check_state_names(state_dict, self._parameter_list, self._accumulator_names)
        for p in self._parameter_list:
            for acc in self._accumulator_names:
                key = f"{p.name}_{acc}_0"
                if key not in state_dict:
                    continue
                value = state_dict[key]
                arr = value._value if isinstance(value, Tensor) else np.asarray(value)
                expected = self._acc(acc, p, **self._acc_spec(acc)).shape
                if tuple(arr.shape) != tuple(expected):
                    raise ValueError(f"optimizer state '{key}' has shape {list(arr.shape)}, expected {list(expected)}")
                dtype = self._acc_spec(acc).get("dtype") or p._value.dtype  # a counter may be int64 (ASGD's)
                self._accumulators[acc][p.name] = np.array(arr, dtype=dtype, copy=True)

    set_dict = set_state_dict

    def _acc_spec(self, acc):
        """How an accumulator is created (its init value and shape) for ``set_state_dict``."""
        return {}


def check_state_names(state_dict, params, accumulator_names):
    """Refuse optimizer state saved for other parameter names: it would be skipped silently, so
    Adam/Momentum would restart from zero moments while the learning rate and step resume."""
    mine = {f"{p.name}_{acc}_0" for p in params for acc in accumulator_names}
    suffixes = tuple(f"_{acc}_0" for acc in accumulator_names)
    foreign = sorted(k for k in state_dict if isinstance(k, str) and k.endswith(suffixes) and k not in mine)
    if foreign:
        raise ValueError(
            f"optimizer state holds {len(foreign)} entries for parameters this optimizer does not have (e.g. "
            f"{foreign[0]!r}; its parameters are {[p.name for p in params][:4]}...): parameter names come from "
            "the order layers are created in the process, so build the model the same way as when saving "
            "(a fresh process), or rename the keys to this optimizer's parameter names")
