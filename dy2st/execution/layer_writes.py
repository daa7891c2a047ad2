"""What a traced `forward` writes into its Layer, replayed on every run of the cached Program.

`self.n = self.n + 1` (a buffer) and `self.last = y * 2` run once, while the Program is
built, and would leave static Variables on the layer. Instead, as Paddle does for buffers,
the written tensors become extra outputs of the Program; the layer is restored right after
the trace, and after every run the new values are written back:

- a tensor the Program reads (a buffer bound by reference) is updated in place, so the next
  run reads the new value;
- any other slot (`self.last`) gets the run's output tensor, as eager code would.

Python values written during the trace (`self.calls += 1`) stay as the trace left them, and are
guarded as they were before it (``python_changes``): the next call retraces and changes them
again, as eager code does on every call (a global counter is handled the same way).

Parameters must not be created while a Program is built (a Layer constructed inside
`forward`): they would be frozen into the Program. `tracking()` refuses them.
"""
import contextlib
import inspect
import weakref

import runtime as rt
from dy2st.operators.common import is_symbolic
from dy2st.operators.side_effects import Snapshot
from runtime import pytree
from runtime.dispatch import to_variable
from runtime.nn import layer as layer_module

_NEW_STATE = ("creates parameters or buffers while a Program is built (a Layer constructed inside a "
              "converted function): they would be made once and frozen into the cached Program. "
              "Create the Layer in __init__ and call it in forward")


class LayerWrites:
    """The tensor slots of a layer tree one trace wrote; `apply()` replays them after a run."""

    def __init__(self, instance):
        roots = []
        if isinstance(instance, rt.nn.Layer):
            roots = [(f"self.{name}" if name else "self", layer)
                     for name, layer in instance.named_sublayers(include_self=True)]
        self._snap = Snapshot(roots) if roots else None
        # (slot, tensor to update in place or None, pytree structure of a new list/dict or None, outputs)
        self._updates = []
        self.count = 0      # extra outputs at the end of the Program's outputs
        # (container, key, value before the trace, label) of the Python values the trace changed
        # (`self.calls += 1`): guarded as they were, so the next call retraces and changes them again
        self.python_changes = []

    def finish(self, out_vars, program):
        """Add the written tensors to `out_vars` and put the layer tree back as it was."""
        if self._snap is None:
            return
        changed = self._snap.changed()
        self._snap.restore()
        keep = {}
        for slot, value in changed.items():
            if not (is_symbolic(value) or rt.is_tensor(value)):
                leaves, skeleton = pytree.flatten(value, rt.static.Variable, sort_keys=False)
                if not leaves:
                    keep[slot] = value  # a Python value: the next call retraces (see python_changes)
                    self.python_changes.append((self._snap.container(slot), slot[1], self._snap.original(slot),
                                                self._snap.describe(slot)))
                    continue
                out_vars.extend(to_variable(v) for v in leaves)  # a new list/dict of tensors
                self._updates.append((slot, None, skeleton, len(leaves)))
                continue
            var = to_variable(value)
            if is_symbolic(value) and not program.global_block().has_var(var.name):
                raise ValueError(f"{self._snap.describe(slot)} is set to a tensor made inside a loop or branch of the "
                                 f"converted function ('{var.name}'): the Program cannot hand it back to the "
                                 f"layer. Keep it in a local variable (or set it after the loop)")
            old = self._snap.original(slot)
            read = rt.is_tensor(old) and not is_symbolic(old) and any(
                t is old for t in program.bound_tensors.values())
            if read and not old.is_leaf and not isinstance(self._snap.container(slot), layer_module.StateTable):
                # `self.prev = h` kept with its graph (a previous call's output): rebound, as eagerly;
                # written in place, the graph through it (the last call's backward) saw it change
                read = False
            out_vars.append(var)
            self._updates.append((slot, old if read else None, None, 1))
        self._snap.write(keep)
        self.count = sum(u[3] for u in self._updates)

    def rebound(self):
        """{(id of the container, key)} of the slots whose new tensor every run hands back (`self.last = y`, a
        forward pre-hook's `setattr(layer, "weight", g * v / norm(v))`): state the Program keeps, not an input
        whose change means a retrace."""
        return frozenset(u[0] for u in self._updates)

    def buffer_writes(self, outputs, program):
        """[(output var name, buffer var name)]: the run's extra outputs (``outputs``, the Program's) that
        ``apply`` writes into a tensor the Program reads (`self.steps = self.steps + 1`), as the var of
        that tensor: what a saved model must write itself, having no converted function around it."""
        if not self.count:
            return []
        names = {id(t): n for n, t in program.bound_tensors.items()}
        pos, pairs = len(outputs) - self.count, []
        for _slot, in_place, _skeleton, size in self._updates:
            out = outputs[pos]
            if (in_place is not None and id(in_place) in names and list(in_place.shape) == list(out.shape)
                    and in_place.dtype == out.dtype):
                pairs.append((out.name, names[id(in_place)]))
            pos += size
        return pairs

    def abandon(self):
        """Undo the writes the trace made into the layer (the trace failed)."""
        if self._snap is not None:
            self._snap.restore()

    def apply(self, outs):
        """Write a run's extra outputs back into the layer tree; returns the user's outputs."""
        if not self.count:
            return outs
        n = len(outs) - self.count
        fresh, pos = {}, n
        for slot, in_place, skeleton, size in self._updates:
            new = outs[pos]
            if in_place is not None and in_place.shape == new.shape and in_place.dtype == new.dtype:
                in_place.set_value(new)
            elif skeleton is not None:
                fresh[slot] = pytree.unflatten(skeleton, outs[pos:pos + size])
            else:
                # a new tensor, also for a read one whose shape changed (a KV cache the call grows),
                # as eager's rebinding; the cache guards see the new shape on the next call
                fresh[slot] = new
            pos += size
        self._snap.write(fresh)
        return outs[:n]


@contextlib.contextmanager
def tracking(instance):
    """Around one trace: yields the LayerWrites; refuses new parameters/buffers meanwhile."""
    writes = LayerWrites(instance)
    try:
        with layer_module.forbid_new_state(_NEW_STATE):
            yield writes
    except BaseException:
        writes.abandon()
        raise


_WITH_HOOKS = weakref.WeakKeyDictionary()


def with_hooks(forward):
    """``forward`` run between the layer's forward pre- and post-hooks, as ``Layer.__call__``
    runs it: what ``save`` traces for a Layer with hooks (so the saved model applies them
    too), and what converted code calls for a sublayer with hooks. One per ``forward``."""
    try:
        return _WITH_HOOKS[forward]
    except (KeyError, TypeError):
        pass

    def forward_with_hooks(self, *inputs):
        for hook in self._forward_pre_hooks:
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        out = forward(self, *inputs)
        for hook in self._forward_post_hooks:
            result = hook(self, inputs, out)
            if result is not None:
                out = result
        return out

    forward_with_hooks.__signature__ = inspect.signature(forward)
    forward_with_hooks.__name__ = getattr(forward, "__name__", "forward")
    try:
        _WITH_HOOKS[forward] = forward_with_hooks
    except TypeError:
        pass
    return forward_with_hooks
