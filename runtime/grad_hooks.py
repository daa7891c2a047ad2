"""``Tensor.register_hook`` (Paddle's): a function of a tensor's gradient, called when backward has
summed that gradient, whose result (unless None) replaces it.

Eagerly a leaf's hooks run before its contributions go into ``.grad`` and a computed tensor's hooks
run before its gradient flows on to the op that made it (``run_backward``). While a Program is
built the hooks are kept on the Variable, and the backward pass calls them on the Variable's summed
gradient (``runtime.static.backward``), so they become ops that run at every call.
"""
import warnings
import weakref

import numpy as np

from .trace_state import _mode

_LEAF = {}  # id(leaf Tensor) -> its hooks
_OUT = {}  # (id(tape Node), output index) -> the hooks of the Tensor that output is


class HookRemoveHelper:
    """What ``register_hook`` returns: ``remove()`` unregisters the hook (True if it was still there)."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        """Unregister the hook; True if it was registered."""
        for i, h in enumerate(self._hooks):
            if h is self._hook:
                del self._hooks[i]
                return True
        return False


def _check(t, hook):
    if not callable(hook):
        raise TypeError(f"register_hook expects a callable, got {type(hook).__name__}")
    if t.stop_gradient:
        raise RuntimeError("cannot register a hook on a tensor that does not need a gradient (stop_gradient=True)")


def register(t, hook):
    """Register ``hook`` on the eager Tensor ``t`` (see the module docstring)."""
    _check(t, hook)
    if _mode.static:  # a Layer's parameter, say, reached while a Program is built: registered now and
        # noted on the Program, so that whoever runs it again can register it again at each run, as eagerly
        from .framework import default_main_program  # noqa: PLC0415  (framework imports the tensor module)
        default_main_program().__dict__.setdefault("_eager_hooks", []).append((t, hook))
    if t._node is None:
        table, key, owner = _LEAF, id(t), t
    else:
        node, index = t._node
        table, key, owner = _OUT, (id(node), index), node
    hooks = table.get(key)
    if hooks is None:
        hooks = table[key] = []
        weakref.finalize(owner, table.pop, key, None)  # ids are reused once the owner is gone
    hooks.append(hook)
    return HookRemoveHelper(hooks, hook)


def register_static(v, hook):
    """Register ``hook`` on the Variable ``v`` of the Program being built (applied by its backward pass).

    The Program keeps them by variable name (``_grad_hooks``), and its clones share them: a
    converted function's backward is built on a clone of its Program."""
    if not callable(hook):
        raise TypeError(f"register_hook expects a callable, got {type(hook).__name__}")
    program = v.block.program
    table = program.__dict__.setdefault("_grad_hooks", {})
    hooks = table.setdefault(v.name, [])
    hooks.append(hook)
    return HookRemoveHelper(hooks, hook)


def eager_hooks(program):
    """The ``(tensor, hook)`` pairs registered on eager tensors while ``program`` was built and still
    registered (a hook the traced code removed again is not)."""
    out = []
    for t, hook in program.__dict__.get("_eager_hooks", ()):
        table, key = (_LEAF, id(t)) if t._node is None else (_OUT, (id(t._node[0]), t._node[1]))
        if any(h is hook for h in table.get(key, ())):
            out.append((t, hook))
    return out


def any_hooks():
    """Whether an eager hook is registered (the backward fast paths do not run hooks)."""
    return any(_LEAF.values()) or any(_OUT.values())


def _run(hooks, g, wrap):
    for hook in list(hooks):
        out = hook(wrap(g))
        if out is not None:
            new = np.asarray(getattr(out, "_value", out))
            if new.shape != g.shape:
                raise ValueError(f"a gradient hook returned shape {list(new.shape)} for a gradient of shape "
                                 f"{list(g.shape)}")
            g = new.astype(g.dtype, copy=False)
    return g


def leaf_grad(t, g, wrap):
    """``g`` (an array) after the hooks of the leaf ``t``."""
    hooks = _LEAF.get(id(t))
    return _run(hooks, g, wrap) if hooks else g


def output_grads(node, grads, wrap):
    """``grads`` (per output of ``node``, arrays or None) after the hooks of the node's outputs."""
    for i, g in enumerate(grads):
        hooks = _OUT.get((id(node), i))
        if hooks and g is not None:
            grads[i] = _run(hooks, np.asarray(g), wrap)
    return grads


def output_tensor_grads(node, grads):
    """``output_grads`` for gradients held as Tensors (``rt.grad``, which may record them for a
    second derivative): each hook gets the Tensor and its result is kept as it is."""
    for i, g in enumerate(grads):
        hooks = _OUT.get((id(node), i))
        if hooks and g is not None:
            for hook in list(hooks):
                out = hook(g)
                if out is not None:
                    g = out
            grads[i] = g
    return grads


def static_grad(block, name, g):
    """The gradient Variable ``g`` of the variable ``name`` after its hooks (ops appended to ``block``)."""
    table = block.program.__dict__.get("_grad_hooks")
    for hook in list(table.get(name, ())) if table else ():
        out = hook(g)
        if out is not None:
            g = out
        else:
            # A hook for its side effect (Grad-CAM's `self.grads = g`, a print) would keep or show a
            # Variable, once, where eager runs it on every backward with the values: say so.
            warnings.warn(f"the gradient hook {getattr(hook, '__qualname__', hook)!r} returned None inside a "
                          "converted function: it ran once, while the backward was built, on a static Variable "
                          "(a gradient it stores has no values), not at every backward as eagerly; return the "
                          "new gradient, or read gradients outside the converted function", stacklevel=2)
    return g


def program_hooks(program):
    """The names of ``program``'s variables that have ``register_hook`` functions."""
    table = program.__dict__.get("_grad_hooks") or {}
    return sorted(name for name, hooks in table.items() if hooks)
