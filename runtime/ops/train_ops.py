"""Training ops: what ``loss.backward()``, ``opt.step()`` and ``opt.clear_grad()`` append to a Program.

A training step built inside a Program (``runtime.static.train_step``) ends in these
ops.  Their kernels act on the live eager objects the Program was built against: the
parameters (``Tensor``\\ s bound by reference), their ``.grad`` and the optimizer, whose
own update rule does the arithmetic.  So one compiled call of forward, backward and
update leaves parameters, accumulators, step count, scheduler-driven learning rate and
``.grad`` exactly as the eager calls would, with no copy of any of them.

Each op holds its eager objects in a ``Handle`` attr, which prints as a short name.
"""
import numpy as np

from ..registry import Meta, def_op
from ..tensor import _accumulate

TRAIN_ONLY = ("training op: updates eager parameters, gradients and optimizer state in place; "
              "ONNX export takes inference Programs")


class Handle:
    """A Program attr holding live eager objects (an optimizer, parameters) under a short name."""

    __slots__ = ("obj", "params", "text")

    def __init__(self, obj, params, text):
        self.obj, self.params, self.text = obj, list(params), text

    def __repr__(self):
        return self.text

    def saved_attr(self):
        """Called by the Program writer: a live eager object has no saved form, so a saved
        Program cannot read one (an output computed from ``p.grad`` or ``opt.get_lr()``)."""
        raise TypeError(f"an output of this Program reads {self.text} of the training run, which a saved "
                        "inference model cannot hold: return that value from another function, or save the "
                        "function that computes the model's outputs only")

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


def _no_outputs(*_, **__):
    return ()


def _same_as_inputs(params, **_):
    return list(params)


def accumulate_grads_kernel(grads, params=None):
    """Add each gradient into its parameter's ``.grad`` as eager ``backward()`` does."""
    for p, g in zip(params.params, grads):
        _accumulate(p, g)


def sync_params(tensors, values):
    """Give each eager parameter the value the Program holds for it at this op.  A Program stores the
    parameters it writes (``assign``, ``add_`` under ``no_grad``) back into the eager tensors only at
    its end, but the update rule reads and writes the eager tensors now: it must start from the value
    eager code would see at this point, not the one from before the call."""
    for p, v in zip(tensors, values):
        cur = p._value
        if v is cur:
            continue
        if cur.shape == v.shape and cur.dtype == v.dtype and cur.flags.writeable:
            np.copyto(cur, v)  # in place: a flat group's view stays its view
        else:
            p._value = np.array(v, copy=True)


def optimizer_step_kernel(params, optimizer=None):
    """Run the optimizer's eager update; return the parameters' (possibly re-laid-out) arrays."""
    sync_params(optimizer.params, params)
    optimizer.obj._eager_step()
    return [p._value for p in optimizer.params]


def clear_grads_kernel(optimizer=None):
    """``opt.clear_grad()`` (or ``param.clear_grad()``): drop the parameters' ``.grad``."""
    if optimizer.obj is not None:
        optimizer.obj._eager_clear_grad()
    else:
        for p in optimizer.params:
            p.grad = None


def train_update_kernel(grads, params, optimizer=None, grad_params=None, owned=frozenset()):
    """``accumulate_grads``, ``optimizer_step`` and ``clear_grads`` in one call.

    When no parameter of the optimizer holds a ``.grad`` before the call (the usual loop
    clears them), the gradients go to the update rule directly instead of through
    ``.grad``: the same arrays, cast as ``backward`` casts them, so the same update.
    ``owned``: indices of gradients nothing but this call holds (``passes.owned_grads``),
    which the rule may overwrite, as it may a cast copy.
    """
    opt = optimizer.obj
    sync_params(optimizer.params, params)
    if opt._grads_empty():
        by_param, spare = {}, set()
        for k, (p, g) in enumerate(zip(grad_params.params, grads)):
            if g.dtype != p._value.dtype:
                g = g.astype(p._value.dtype)
                spare.add(id(p))
            elif k in owned:
                spare.add(id(p))
            by_param[id(p)] = g
        opt._apply_given(by_param, spare)
    else:
        accumulate_grads_kernel(grads, grad_params)
        opt._eager_step()
        opt._eager_clear_grad()
    return [p._value for p in optimizer.params]


def read_grad_kernel(tensor=None):
    """``t.grad`` read inside a converted function: a copy of its value at this point of the run."""
    g = tensor.params[0]._grad
    if g is None:  # the guards retrace when .grad's presence at a call differs from the trace's
        raise RuntimeError(f"{tensor.text} is None at this point of the call, but was set while tracing")
    return g._value.copy()  # a later in-place write into .grad does not change this value


def _read_grad_meta(tensor=None):
    value = tensor.params[0]._value
    return Meta(list(value.shape), str(value.dtype))


def lr_scheduler_step_kernel(scheduler=None, epoch=None):
    """``scheduler.step(epoch)``: the rate the next ``optimizer_step``/``train_update`` reads."""
    scheduler.obj.step(epoch)


def set_learning_rate_kernel(optimizer=None, value=0.0):
    """``opt.set_lr(value)``: the rate the updates after it use."""
    optimizer.obj.set_lr(value)


def learning_rate_kernel(source=None):
    """``opt.get_lr()`` / ``scheduler()`` read when the Program runs (the rate of this call)."""
    return np.asarray(float(source.obj()), np.float64)


def _train_update_fast(block, op):
    """The kernel for the plan: the gradients it may overwrite settled now, and with ``plan_updates``
    the optimizer's update written out for the plan (``optimizer.plan_update``); None: the registry's."""
    from ..static.passes.features import enabled  # noqa: PLC0415  (static imports the ops)
    from ..static.passes.owned_grads import owned_gradients  # noqa: PLC0415
    owned = owned_gradients(block, op)
    optimizer, grad_params = op.attrs["optimizer"], op.attrs["grad_params"]

    def train_update(grads, params):
        return train_update_kernel(grads, params, optimizer, grad_params, owned)
    if enabled("plan_updates"):
        from ..optimizer.plan_update import plan_kernel  # noqa: PLC0415  (optimizers import the static package)
        written = plan_kernel(optimizer.obj, grad_params, optimizer, owned, train_update)
        if written is not None:
            return written
    return train_update if owned else None


def_op("accumulate_grads", ["Grad*"], [], attrs={"params": None}, kernel=accumulate_grads_kernel,
       infer=_no_outputs, side_effect=True, no_onnx=TRAIN_ONLY,
       doc="Accumulate each Grad into its eager parameter's .grad (loss.backward() in a Program).")
def_op("optimizer_step", ["Param*"], ["ParamOut*"], attrs={"optimizer": None}, kernel=optimizer_step_kernel,
       infer=_same_as_inputs, side_effect=True, no_onnx=TRAIN_ONLY,
       doc="Run the optimizer's update on its parameters' .grad (opt.step() in a Program).")
def_op("clear_grads", [], [], attrs={"optimizer": None}, kernel=clear_grads_kernel,
       infer=_no_outputs, side_effect=True, no_onnx=TRAIN_ONLY,
       doc="Drop the .grad of the optimizer's parameters (opt.clear_grad() in a Program).")
def_op("train_update", ["Grad*", "Param*"], ["ParamOut*"], attrs={"optimizer": None, "grad_params": None},
       kernel=train_update_kernel, infer=lambda grads, params, **_: list(params), side_effect=True,
       no_onnx=TRAIN_ONLY, fast=_train_update_fast,
       doc="accumulate_grads, optimizer_step and clear_grads of one training step in one op.")
def_op("read_grad", [], ["Out"], attrs={"tensor": None}, kernel=read_grad_kernel, infer=_read_grad_meta,
       side_effect=True, no_onnx=TRAIN_ONLY,
       doc="An eager tensor's .grad read in a Program (t.grad in a converted function), at every run; "
           "side_effect keeps it in order with the accumulate_grads/clear_grads it follows.")
def_op("lr_scheduler_step", [], [], attrs={"scheduler": None, "epoch": None}, kernel=lr_scheduler_step_kernel,
       infer=_no_outputs, side_effect=True, no_onnx=TRAIN_ONLY,
       doc="Advance an LRScheduler (scheduler.step() in a Program): the steps after it read its new rate.")
def_op("learning_rate", [], ["Out"], attrs={"source": None}, kernel=learning_rate_kernel,
       infer=lambda source=None: Meta([], "float64"), side_effect=True, no_onnx=TRAIN_ONLY,
       doc="The current rate of an optimizer or LRScheduler (opt.get_lr(), scheduler() in a Program), read "
           "at every run; side_effect keeps it from being folded or hoisted as a constant.")
def_op("set_learning_rate", [], [], attrs={"optimizer": None, "value": 0.0}, kernel=set_learning_rate_kernel,
       infer=_no_outputs, side_effect=True, no_onnx=TRAIN_ONLY,
       doc="opt.set_lr(value) at every run of a Program (in a converted function).")
