"""``output_spec`` of ``dy2st.save`` / ``dy2st.onnx.export``: which outputs the saved model keeps.

Paddle semantics: a list of the function's output Tensors (by default every output is
kept); the saved Program is pruned to the chosen ones, in the order given.  An entry
may be:

- an output Tensor of a call of the converted function (``out, loss = net(x)``, then
  ``output_spec=[out]``): converted calls remember which Program output var each output
  Tensor is (``name_outputs``), and that name gives its position among the outputs;
- a Variable of ``static_fn.outputs`` / ``concrete_program.outputs``, or its name;
- an ``int``: the position in the flattened outputs (negative counts from the end).

An entry that is none of these, or names no output, is an error listing the outputs.
"""
import weakref

import runtime as rt

__all__ = ["select_outputs", "name_outputs"]


# id(Tensor) -> (weak reference, Program output var name) for the outputs of converted calls.  Kept
# aside, not in ``Tensor.name``: a name there would become a feed name when the Tensor is given as an
# InputSpec, where it could clash with the traced Program's own var names.
_TAGS = {}


def name_outputs(concrete, outs):
    """Remember which Program output var each output Tensor of one call comes from (Paddle's to_static
    outputs carry the var name), so that ``output_spec`` can name them; returns ``outs``."""
    for t, v in zip(outs, concrete.outputs):
        if isinstance(t, rt.Tensor):
            key = id(t)
            _TAGS[key] = (weakref.ref(t, lambda _, key=key: _TAGS.pop(key, None)), v.name)
    return outs


def _output_name(entry):
    if isinstance(entry, str):
        return entry
    tag = _TAGS.get(id(entry))
    if tag is not None and tag[0]() is entry:
        return tag[1]
    return getattr(entry, "name", None)


def _positions_by_name(sf, concrete):
    """Output var name -> position, from the Program being saved first, then every cached Program of
    the same function (a call in train() mode may have traced other names than the eval() save)."""
    found = {}
    others = list(sf.program_cache.concrete_programs()) if sf is not None else []
    for cp in others + [concrete]:  # the saved Program's own names win
        for k, v in enumerate(cp.outputs):
            found[v.name] = k
    return found


def select_outputs(output_spec, outputs, skeleton, sf=None, concrete=None):
    """The chosen ``(outputs, skeleton)`` for ``output_spec`` (None: all outputs, unchanged)."""
    if output_spec is None:
        return outputs, skeleton
    if not isinstance(output_spec, (list, tuple)):
        output_spec = [output_spec]
    if not output_spec:
        raise ValueError("output_spec is empty: give at least one output (a Tensor the function returned, "
                         "an output Variable, or an index), or output_spec=None for all outputs")
    names = _positions_by_name(sf, concrete) if concrete is not None else {v.name: k for k, v in enumerate(outputs)}
    n = len(outputs)
    listing = ", ".join(f"{k}: {v.name}{list(v.shape)}" for k, v in enumerate(outputs))
    chosen = []
    for entry in output_spec:
        if isinstance(entry, bool) or not isinstance(entry, (int, str)) and not hasattr(entry, "name"):
            raise TypeError(f"output_spec entries must be output Tensors, Variables, names or int indices, got "
                            f"{type(entry).__name__}")
        if isinstance(entry, int):
            if not -n <= entry < n:
                raise ValueError(f"output_spec index {entry} is out of range: the function has {n} outputs "
                                 f"({listing})")
            k = entry % n
        else:
            name = _output_name(entry)
            k = names.get(name)
            if k is None or k >= n:
                what = f"'{name}'" if name else "a Tensor without a name (not an output of a converted call)"
                raise ValueError(f"output_spec: {what} is not an output of the saved function; its outputs are "
                                 f"{listing} (give these Tensors, their names, or indices)")
        if k in chosen:
            raise ValueError(f"output_spec names output {k} ({outputs[k].name}) twice")
        chosen.append(k)
    selected = [outputs[k] for k in chosen]
    new_skeleton = ("T", 0) if len(chosen) == 1 else ("list", tuple(("T", i) for i in range(len(chosen))))
    return selected, new_skeleton
