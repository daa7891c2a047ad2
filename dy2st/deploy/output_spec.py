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
import warnings
import weakref

import runtime as rt
from runtime import pytree

from ..frontend.function_spec import OutputStructure

__all__ = ["OutputTag", "select_outputs", "name_outputs", "name_outputs_source", "output_tags", "dicts_as_sequence"]


class OutputTag:
    """Which output (``position``) of which ConcreteProgram (``program``, a weak reference) a Tensor
    returned by a converted call is, held in the Tensor's ``_origin`` slot (Paddle's to_static outputs
    carry their var name).  Not in ``Tensor.name``: a name there would become a feed name when the
    Tensor is given as an InputSpec, where it could clash with the traced Program's own var names.

    The Tensor holds its tag, so a Tensor that dies takes it along and a reused ``id`` never
    matches; the weak reference keeps no Program alive.  A copy or pickle of a Tensor is another
    Tensor, not a call's output: it comes back untagged (``Tensor.__getstate__``)."""

    __slots__ = ("position", "program")

    def __init__(self, position, program):
        self.position = position
        self.program = weakref.ref(program)


def output_tags(concrete):
    """The tags of ``concrete``'s outputs, one per position, made once (a call stores them as they are)."""
    tags = concrete.__dict__.get("_output_tags")
    if tags is None:  # two threads racing both make equal tags: harmless
        tags = concrete._output_tags = [OutputTag(k, concrete) for k in range(len(concrete.outputs))]
    return tags


def name_outputs(concrete, outs):
    """Tag each output Tensor of one call with its position in ``concrete`` (see ``OutputTag``), so
    that ``output_spec`` can find it; returns ``outs``."""
    for t, tag in zip(outs, output_tags(concrete)):
        if isinstance(t, rt.Tensor):
            t._origin = tag
    return outs


def name_outputs_source(concrete, positions):
    """``name_outputs`` as lines of generated code (a cache-hit call, ``fast_call.py``): tag the
    Tensors ``outs[k]`` for each ``k`` in ``positions``.  Returns the lines and the names they read."""
    tags = output_tags(concrete)
    lines = [f"outs[{k}]._origin = TAG{k}" for k in positions]
    return lines, {f"TAG{k}": tags[k] for k in positions}


def _tag(entry):
    """The OutputTag of ``entry`` whose Program is still alive, or None."""
    tag = getattr(entry, "_origin", None)  # a Tensor unpickled from before the slot existed has none set
    if type(tag) is not OutputTag:
        return None
    program = tag.program()
    return None if program is None else (program, tag.position)


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
            program, k = _tag(entry)
            if id(program) not in own or k >= n:
                raise ValueError("output_spec: this Tensor is an output of another converted function (or of "
                                 f"another Layer), not of the one saved; its outputs are {listing}")
        else:
            name = entry if isinstance(entry, str) else getattr(entry, "name", None)
            k = names.get(name)
            if k is None or k >= n:
                what = f"'{name}'" if name else "a Tensor without a name (not an output of a converted call)"
                if len(output_spec) == n and not isinstance(entry, str):
                    # Paddle's rule: as many entries as outputs prunes nothing, so a Tensor that is no
                    # output is only warned about and every output is kept
                    warnings.warn(f"output_spec: {what} is not an output of the saved function; as many "
                                  f"entries as outputs prune nothing: all of them are kept ({listing})",
                                  UserWarning, stacklevel=5)
                    return outputs, skeleton
                raise ValueError(f"output_spec: {what} is not an output of the saved function; its outputs are "
                                 f"{listing} (give these Tensors, their names, or indices)")
        if k in chosen:
            raise ValueError(f"output_spec names output {k} ({outputs[k].name}) twice")
        chosen.append(k)
    selected = [outputs[k] for k in chosen]
    return selected, OutputStructure.of_outputs(len(chosen))


DICT_WARNING = ("Found 'dict' in given outputs, the values will be returned in a sequence sorted in "
                "lexicographical order by their keys.")


class _Leaf:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def _has_dict(spec):
    return spec.kind == "dict" or any(_has_dict(c) for c in spec.children)


def dicts_as_sequence(structure, warn=True):
    """Paddle's saved-model outputs for a function that returns a dict (anywhere in its result):
    its Tensors as a flat sequence, dict values in sorted key order, constants dropped; one Tensor
    comes back alone.  Other structures (Tensors, lists, tuples) are kept as returned."""
    if structure is None or not _has_dict(structure.spec):
        return structure
    if warn:
        warnings.warn(DICT_WARNING, UserWarning, stacklevel=5)  # the caller of dy2st.save
    marks = pytree.unflatten(structure.spec, [_Leaf(k) for k in range(len(structure.index))])
    order = pytree.flatten(marks, _Leaf, sort_keys=True)[0]
    index = [structure.index[m.k] for m in order]
    rows = [j for j, m in enumerate(order) if m.k in structure.rows]
    flat = pytree.flatten(0 if len(order) == 1 else list(range(len(order))))[1]
    return OutputStructure(flat, index, rows)
