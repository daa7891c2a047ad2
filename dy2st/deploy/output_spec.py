"""``output_spec`` of ``dy2st.save`` / ``dy2st.onnx.export``: which outputs the saved model keeps.

Paddle semantics: a list of the function's output Tensors (by default every output is
kept); the saved Program is pruned to the chosen ones, in the order given.  An entry
may be:

- an output Tensor of a call of the converted function (``out, loss = net(x)``, then
  ``output_spec=[out]``): converted calls remember which output of which Program each
  output Tensor is (``name_outputs``); a Tensor from another function is an error;
- a Variable of ``static_fn.outputs`` / ``concrete_program.outputs``, or its name;
- an ``int``: the position in the flattened outputs (negative counts from the end).

An entry that is none of these, or names no output, is an error listing the outputs.
"""
import weakref

import runtime as rt

from ..frontend.function_spec import OutputStructure

__all__ = ["select_outputs", "name_outputs", "name_outputs_source"]


# id(Tensor) -> (weak reference, output position, id of the ConcreteProgram) for the outputs of
# converted calls.  Kept aside, not in ``Tensor.name``: a name there would become a feed name when the
# Tensor is given as an InputSpec, where it could clash with the traced Program's own var names.
# Entries of dead Tensors are swept when the table doubles (a weakref callback per output costs
# more than the rest of a cache-hit call); ``_tag`` checks the weakref, so a reused id never matches.
_TAGS = {}
_SWEEP_AT = [1024]


def name_outputs(concrete, outs):
    """Remember which output of which Program each output Tensor of one call is (Paddle's to_static
    outputs carry their var name), so that ``output_spec`` can find them; returns ``outs``."""
    ref, cid = weakref.ref, id(concrete)
    for k, t in enumerate(outs[:len(concrete.outputs)]):
        if isinstance(t, rt.Tensor):
            _TAGS[id(t)] = (ref(t), k, cid)
    if len(_TAGS) > _SWEEP_AT[0]:
        _sweep()
    return outs


def _sweep():
    """Drop the entries of dead Tensors; the next sweep comes when the table has doubled."""
    for key in [key for key, tag in _TAGS.items() if tag[0]() is None]:
        del _TAGS[key]
    _SWEEP_AT[0] = max(1024, 2 * len(_TAGS))


def name_outputs_source(concrete, positions):
    """``name_outputs`` as lines of generated code (a cache-hit call, ``fast_call.py``): tag the
    Tensors ``outs[k]`` for each ``k`` in ``positions``, then sweep when due.  Returns the lines and
    the names they read."""
    lines = [f"o = outs[{k}]; TAGS[id(o)] = (REF(o), {k}, {id(concrete)})" for k in positions]
    lines.append("if len(TAGS) > SWEEP_AT[0]: SWEEP()")
    return lines, {"TAGS": _TAGS, "SWEEP_AT": _SWEEP_AT, "REF": weakref.ref, "SWEEP": _sweep}


def _tag(entry):
    tag = _TAGS.get(id(entry))
    return tag if tag is not None and tag[0]() is entry else None


def _own_programs(sf, concrete):
    """The ConcretePrograms whose call outputs may be chosen: the function's (and, for a Layer saved
    through a wrapper with its hooks, its ``forward``'s) and the one being saved."""
    fns = [sf, getattr(getattr(sf, "_instance", None), "forward", None)]
    found = [concrete]
    for fn in fns:
        cache = getattr(fn, "program_cache", None)
        if cache is not None:
            found.extend(cache.concrete_programs())
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
    programs = _own_programs(sf, concrete) if concrete is not None else []
    own = {id(cp) for cp in programs}
    names = {}
    for cp in programs[1:] + programs[:1]:  # the saved Program's own names win
        names.update((v.name, k) for k, v in enumerate(cp.outputs))
    names.update((v.name, k) for k, v in enumerate(outputs))
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
        elif _tag(entry) is not None:  # an output Tensor of a converted call: its position, if ours
            _, k, program = _tag(entry)
            if program not in own or k >= n:
                raise ValueError("output_spec: this Tensor is an output of another converted function (or of "
                                 f"another Layer), not of the one saved; its outputs are {listing}")
        else:
            name = entry if isinstance(entry, str) else getattr(entry, "name", None)
            k = names.get(name)
            if k is None or k >= n:
                what = f"'{name}'" if name else "a Tensor without a name (not an output of a converted call)"
                raise ValueError(f"output_spec: {what} is not an output of the saved function; its outputs are "
                                 f"{listing} (give these Tensors, their names, or indices)")
        if k in chosen:
            raise ValueError(f"output_spec names output {k} ({outputs[k].name}) twice")
        chosen.append(k)
    selected = [outputs[k] for k in chosen]
    return selected, OutputStructure.of_outputs(len(chosen))
