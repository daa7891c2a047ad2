"""A training step inside one Program: ``loss.backward()``, ``opt.step()``, ``opt.clear_grad()``.

Called while a Program is being built (a converted function), the three calls append:

- ``loss.backward()``: the gradient ops of ``loss`` with respect to every trainable
  parameter the Program reads (``gradients``), then ``accumulate_grads``, which adds
  them into the parameters' ``.grad`` when the Program runs;
- ``opt.step()``: ``optimizer_step``, the optimizer's own update over ``.grad``
  (clipping, weight decay, the learning rate of this step, its accumulators);
- ``opt.clear_grad()``: ``clear_grads``;
- ``t.grad`` of an eager tensor (a parameter): ``read_grad``, its value when the Program runs
  (after the backward before it), or None where eager's would be None (``record_grad_read``);
- ``scheduler.step()``: ``lr_scheduler_step``, so the rate advances at every call (not once, while
  the Program is built) and the updates after it read the new one, as eagerly.

The usual ``backward(); step(); clear_grad()`` becomes one ``train_update`` op that
hands the gradients to the update rule directly (when no ``.grad`` is set at run time).
The Program's forward, backward and update then run as one compiled function and leave
every eager object as the eager calls would; its outputs carry no gradient graph
(``is_train_step``): their backward already ran inside it.

What eager code can do but a Program cannot is a clear error here, at the user's line:
a backward or step under a tensor-dependent ``if``/``while``, a ``grad_tensor``, an input
that needs a gradient.
"""
from ..dispatch import to_variable
from ..ops.train_ops import Handle
from ..tensor import is_grad_enabled
from ..ops.creation import full
from .backward import building, gradients

_FLOATS = ("float16", "float32", "float64")


def is_train_step(program):
    """Whether ``program`` updates parameters itself (its outputs take no gradient)."""
    return bool(program.__dict__.get("_train_step"))


def is_train_backward(program):
    """Whether ``program``'s training step runs a backward (``check_train_call`` then checks its calls)."""
    return bool(program.__dict__.get("_train_backward"))


def check_train_call(program, tensors):
    """Refuse, before it runs, a call of a training-step Program that eager code would run differently:
    under ``no_grad`` (eager ``backward`` raises) or with an input that needs a gradient."""
    if not program.__dict__.get("_train_backward"):
        return
    if not is_grad_enabled():
        raise RuntimeError("backward() on a tensor that does not need a gradient: this converted function "
                           "calls loss.backward() and is called under no_grad()")
    for t in tensors:
        if not t.stop_gradient and t._value.dtype.kind == "f":
            raise NotImplementedError(
                "a converted function that calls loss.backward() fills the .grad of parameters only, but an "
                "input tensor needs a gradient too (stop_gradient=False); set stop_gradient=True on the "
                "inputs, or call backward outside the converted function")


def _global(block, what):
    program = block.program
    if program.current_block() is not program.global_block():
        raise NotImplementedError(
            f"{what} inside a tensor-dependent `if`/`while` of a converted function: the training step must "
            "run unconditionally there; compute the loss with the condition inside it (a `cond` op), or "
            "decide the branch with a Python value")
    return program.global_block()


def _handle_params(block, params):
    """The params among ``params`` that ``block``'s Program reads (bound by reference), in order."""
    bound = {id(t): name for name, t in block.program.bound_tensors.items()}
    return [(p, bound[id(p)]) for p in params if id(p) in bound]


def record_backward(loss, grad_tensor=None):
    """``loss.backward()`` while ``loss``'s Program is built: gradient ops and their accumulation."""
    if grad_tensor is not None:
        raise NotImplementedError("loss.backward(grad_tensor) inside a converted function: only the default "
                                  "seed (ones) is supported there; scale the loss instead")
    block = _global(loss.block, "loss.backward()")
    if loss.block is not block:
        raise NotImplementedError("loss.backward() on a value made inside a tensor-dependent `if`/`while` body")
    if loss.stop_gradient:
        raise RuntimeError("backward() on a tensor that does not need a gradient "
                           "(stop_gradient=True: no input of it requires grad)")
    program = block.program
    scope_params = [v.name for v in block.vars.values()
                    if v.persistable and v.trainable and v.name not in program.bound_tensors]
    if scope_params:
        raise NotImplementedError(
            f"loss.backward() while building a Program fills the .grad of eager parameters, but parameters "
            f"{scope_params[:3]} live in the scope; in a static Program use rt.static.append_backward(loss) "
            "or rt.static.gradients")
    _check_not_stale(block, loss)
    params = [(name, t) for name, t in program.bound_tensors.items()
              if not t.stop_gradient and str(t.dtype) in _FLOATS]
    seed = None
    if all(d >= 0 for d in loss.shape):
        # A fully known shape: the seed of ones is a constant the executor folds once, instead
        # of a fill_constant_like op run at every call.
        with building(block):
            seed = full(loss.shape, 1.0, str(loss.dtype))
    grads = gradients([loss], [block.var(name) for name, _ in params], target_gradients=seed) if params else []
    pairs = [(t, g) for (_, t), g in zip(params, grads) if g is not None]
    handle = Handle(None, [t for t, _ in pairs], f"<.grad of {len(pairs)} parameters>")
    _grad_state(program).update((id(t), True) for t, _ in pairs)
    block.append_op("accumulate_grads", {"Grad": [g.name for _, g in pairs]}, {}, {"params": handle})
    program._train_step = program._train_backward = True


_UPDATES = ("optimizer_step", "train_update")


def _check_not_stale(block, loss):
    """Eager ``backward`` refuses a graph whose parameters an optimizer step changed in place after
    the forward read them; so does this: an op the loss depends on reads a parameter that a later
    update op writes."""
    ops = block.ops
    need = {loss.name}
    deps = set()
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if op.type in _UPDATES or not any(n in need for n in op.output_arg_names):
            continue  # an update's outputs are new values: no gradient flows through it
        deps.add(i)
        # Gradients flow only into values that need one: a BatchNorm running mean the forward reads
        # (and an earlier batch_norm wrote) links no gradient to the ops before it.
        for n in op.input_arg_names:
            v = block._find_var(n)
            if v is None or not v.stop_gradient:
                need.add(n)
    for s, op in enumerate(ops):
        if op.type not in _UPDATES:
            continue
        written = set(op.output("ParamOut"))
        for i in deps:
            if i < s and written.intersection(ops[i].input_arg_names):
                name = sorted(written.intersection(ops[i].input_arg_names))[0]
                raise RuntimeError(
                    f"loss.backward(): the forward read parameter '{name}' before opt.step() changed it in "
                    "place, so its gradient cannot be computed (eager backward() raises here too); call "
                    "backward() before the step, or run the forward again after it")


def _param_vars(block, opt):
    # The parameters the update writes: not those that take no gradient (BatchNorm's running statistics,
    # frozen ones), which the step skips; the op would write back the arrays they had before the run.
    # (Every bound parameter's stop_gradient is a guard of the Program.)
    found = _handle_params(block, [p for p in opt._parameter_list if not p.stop_gradient])
    return [p for p, _ in found], [name for _, name in found]


def record_step(opt):
    """``opt.step()`` while a Program is built: ``optimizer_step`` (fused with the backward before it
    into ``train_update`` when ``clear_grad`` follows)."""
    from ..framework import default_main_program  # noqa: PLC0415
    block = _global(default_main_program().global_block(), "opt.step()")
    for p in opt._parameter_list:
        # Every parameter the update may write is a Param/ParamOut of the op, also one the Program
        # reads only later (a step before the forward): those reads then see the updated arrays.
        to_variable(p)
    params, names = _param_vars(block, opt)
    handle = Handle(opt, params, f"<{type(opt).__name__} over {len(params)} parameters>")
    block.append_op("optimizer_step", {"Param": names}, {"ParamOut": names}, {"optimizer": handle})
    block.program._train_step = True


def _grad_state(program):
    """id of an eager tensor -> whether its ``.grad`` is set at this point of the Program being built."""
    return program.__dict__.setdefault("_grad_state", {})


def grad_guards(program):
    """[(tensor, whether its .grad was set)] for each tensor whose ``.grad`` the Program read before
    any op of its own set or cleared it: the Program holds only while that presence is the same."""
    return program.__dict__.get("_grad_guards", ())


def record_grad_read(t):
    """``t.grad`` of the eager Tensor ``t`` read while a Program is built: a ``read_grad`` value (read
    when the Program runs, so the value of each call, after the backward the Program ran before it),
    or None where eager's ``.grad`` is None there.  The first read before the Program's own backward
    or clear depends on ``t.grad`` at the call: a guard (``grad_guards``) retraces when it changes.

    Writing into the value (``t.grad.scale_(2)``) is refused: it would change a copy only."""
    from ..framework import default_main_program  # noqa: PLC0415
    from ..dispatch import apply  # noqa: PLC0415
    program = default_main_program()
    state = _grad_state(program)
    present = state.get(id(t))
    if present is None:
        present = state[id(t)] = t._grad is not None
        program.__dict__.setdefault("_grad_guards", []).append((t, present))
    if not present:
        return None
    out = apply("read_grad", tensor=Handle(None, [t], f"<.grad of {t.name or 'a tensor'}>"))
    out.__dict__["grad_of"] = t  # `adopt` refuses it: an in-place write would not reach t.grad
    return out


def record_clear_grad(opt, tensors=None):
    """``opt.clear_grad()`` (``tensors=None``) or ``t.clear_grad()`` of each of ``tensors`` while a
    Program is built: ``clear_grads``, or, right after this optimizer's step that follows a backward,
    the three as one ``train_update``."""
    from ..framework import default_main_program  # noqa: PLC0415
    block = _global(default_main_program().global_block(), "clear_grad()")
    ops = block.ops
    state = _grad_state(block.program)
    state.update((id(t), False) for t in (opt._parameter_list if tensors is None else tensors))
    if tensors is not None:
        block.append_op("clear_grads", {}, {}, {"optimizer": Handle(None, tensors, f"<.grad of {len(tensors)}>")})
        block.program._train_step = True
        return
    if len(ops) >= 2 and ops[-1].type == "optimizer_step" and ops[-2].type == "accumulate_grads" \
            and ops[-1].attrs["optimizer"].obj is opt:
        acc, step = ops[-2], ops[-1]
        mine = {id(p) for p in opt._parameter_list}
        grad_params = acc.attrs["params"]
        if all(id(p) in mine for p in grad_params.params):
            # Only these ops touch .grad between backward and clear_grad (a Program's ops cannot read
            # it): one op with the same effect.
            del ops[-2:]
            names = step.input("Param")
            block.append_op("train_update", {"Grad": acc.input("Grad"), "Param": names}, {"ParamOut": names},
                            {"optimizer": step.attrs["optimizer"], "grad_params": grad_params})
            return
    block.append_op("clear_grads", {}, {}, {"optimizer": Handle(opt, [], f"<{type(opt).__name__}>")})
    block.program._train_step = True


def record_lr_step(scheduler, epoch):
    """``scheduler.step(epoch)`` while a Program is built: ``lr_scheduler_step``."""
    from ..framework import default_main_program  # noqa: PLC0415
    if epoch is not None and type(epoch) is not int:
        raise TypeError(f"scheduler.step(epoch) in a converted function takes a Python int epoch, got "
                        f"{type(epoch).__name__}: call it outside the converted function")
    block = _global(default_main_program().global_block(), "scheduler.step()")
    block.append_op("lr_scheduler_step", {}, {}, {"scheduler": Handle(scheduler, [], f"<{type(scheduler).__name__}>"),
                                                  "epoch": epoch})


def record_lr_read(source, name):
    """``opt.get_lr()`` or ``scheduler()`` while a Program is built: a float64 [] ``learning_rate``
    value read when the Program runs (``source``: a callable returning the rate then), so a rate a
    scheduler or ``set_lr`` changes between calls is the one each call sees, as eagerly."""
    from ..dispatch import apply  # noqa: PLC0415
    return apply("learning_rate", source=Handle(source, [], f"<{name}>"))


def record_set_lr(opt, value):
    """``opt.set_lr(value)`` while a function is converted: ``set_learning_rate`` (a Python number's
    value; a traced one is refused: its value exists only when the Program runs)."""
    from ..framework import default_main_program  # noqa: PLC0415
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"opt.set_lr(value) in a converted function takes a Python number, got {type(value).__name__}: "
                        "call it outside the converted function")
    block = _global(default_main_program().global_block(), "opt.set_lr()")
    block.append_op("set_learning_rate", {}, {}, {"optimizer": Handle(opt, [], f"<{type(opt).__name__}>"),
                                                  "value": float(value)})
