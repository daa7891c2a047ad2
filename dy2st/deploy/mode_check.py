"""A saved model keeps what its Layer computes in train mode, or refuses to run in train().

`dy2st.save` traces the Layer in eval mode (the Program a server should run). A loaded model
put in `train()` for fine-tuning must not run that same Program: batch norm would keep using
(and never update) its running statistics and dropout would stay off, silently not what the
original Layer computes in train mode. At save time the Layer is traced once more in train
mode; when that Program differs, it is stored in the model's metadata (the same validated
Program format) and the loaded model runs it in `train()`, binding the same parameters and
buffers. When it cannot be stored (it reads a parameter the eval Program does not, or writes
Python attributes of the Layer), the loaded model raises in `train()` instead.

The second trace is skipped when it provably gives the same Program (`mode_free`): the Layer
tree is made only of runtime's own layer classes whose code never looks at a `training` flag
(an MLP of Linear/ReLU/LayerNorm: one trace, ``train_differs: False``).  User classes are
traced again: their code may read `self.training` in ways no cheap check can rule out.
"""
import warnings

import runtime as rt
from runtime.static.formats.program_format import deserialize_program, serialize_program
from ..frontend.function_spec import OutputStructure
from .output_spec import dicts_as_sequence


def _attrs_signature(op):
    """An op's plain attributes, comparable (sub-blocks are compared op by op, not here)."""
    return tuple(sorted((k, repr(v)) for k, v in op.attrs.items() if not hasattr(v, "ops")))


def _same_ops(a, b):
    """Whether two Programs have the same ops block by block (types and plain attributes; variable
    names are left out).  The counts and types are compared first: attributes only when they agree."""
    if len(a.blocks) != len(b.blocks):
        return False
    pairs = list(zip(a.blocks, b.blocks))
    if any(len(x.ops) != len(y.ops) or [o.type for o in x.ops] != [o.type for o in y.ops] for x, y in pairs):
        return False
    return all(_attrs_signature(o) == _attrs_signature(p) for x, y in pairs for o, p in zip(x.ops, y.ops))


# What lets code see a layer's mode besides naming `training`: reading attributes by computed name.
_INDIRECT = frozenset({"training", "__dict__", "vars", "getattr", "__getattribute__", "eval", "exec"})


def _names(code):
    """Names and string constants of a code object and the code nested in it."""
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, str):
            out.add(const)
        elif isinstance(const, tuple):  # keyword names of a call
            out.update(c for c in const if isinstance(c, str))
        elif hasattr(const, "co_names"):
            out |= _names(const)
    return out


def _library_mode_free(cls):
    """Whether `cls` is one of runtime's own layer classes and none of its methods can read a
    layer's `training` flag (Linear, ReLU, Sequential...; not Dropout or BatchNorm)."""
    base = rt.nn.Layer
    if not cls.__module__.startswith("runtime.") or not issubclass(cls, base):
        return False
    for klass in cls.__mro__[:cls.__mro__.index(base)]:
        for member in vars(klass).values():
            fn = getattr(member, "fget", getattr(member, "__func__", member))
            if hasattr(fn, "__code__") and _names(fn.__code__) & _INDIRECT:
                return False
    return True


def mode_free(sf, instance):
    """Whether tracing in train mode provably gives the eval-mode Program: `sf` runs the class's own
    forward and the layer tree holds only runtime layer classes that never look at their mode, with
    no hooks.  User code is never assumed mode free (it is traced again instead)."""
    forward = type(instance).forward
    forward = getattr(forward, "dygraph_function", forward)
    if getattr(sf, "dygraph_function", None) is not forward:
        return False
    for sub in instance.sublayers(include_self=True):
        if sub.forward_pre_hooks() or sub.forward_post_hooks() or not _library_mode_free(type(sub)):
            return False
    return True


def train_mode_entries(sf, specs, instance, eval_program, saved_params, encode_structure, chosen=None):
    """Metadata entries describing the train-mode Program of `instance` (see the module docstring).
    ``chosen``: ``(positions, count)`` when ``output_spec`` kept only the outputs at ``positions`` of
    the ``count`` the eval-mode trace returned; the train-mode Program then returns those alone."""
    if instance is None:
        return {}
    if mode_free(sf, instance):  # the train-mode trace would give the same Program: not traced
        return {"train_differs": False}
    modes = [(sub, sub.training) for sub in instance.sublayers(include_self=True)]
    try:
        instance.train()
        concrete = sf._get_concrete(tuple(specs), {})
    except Exception as exc:  # noqa: BLE001 (the train-mode trace is an addition: saving must not fail
        # because of it; but the train-mode Program is unknown, so the loaded model must not run the
        # eval-mode one in train() as if it were the same)
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
        warnings.warn(f"dy2st.save: the Layer's forward could not be traced in train mode ({reason}); the saved "
                      "model runs in eval() only: train() on the loaded model raises", stacklevel=5)
        return {"train_differs": True, "train_error": reason}
    finally:
        for sub, training in modes:
            sub.training = training
    program = concrete.main_program
    if _same_ops(program, eval_program):
        return {"train_differs": False}
    writes = getattr(concrete, "layer_writes", None)
    written = getattr(concrete, "written_inputs", None)
    persistable = {v.name for b in program.blocks for v in b.vars.values() if v.persistable}
    if (writes is not None and writes.count) or written or getattr(concrete, "written_containers", None) or not persistable <= set(saved_params):
        return {"train_differs": True}
    fetch, structure = concrete.outputs, dicts_as_sequence(concrete.out_skeleton, warn=False)
    if chosen is not None:  # output_spec: the same outputs as the eval-mode model returns, in its order
        positions, count = chosen
        if len(fetch) != count:  # another structure in train mode: which outputs match is unknown
            return {"train_differs": True}
        fetch, structure = [fetch[k] for k in positions], OutputStructure.of_outputs(len(positions))
    return {"train_differs": True, "train_program": serialize_program(program),
            "train_feed": [v.name for v in concrete.inputs], "train_fetch": [v.name for v in fetch],
            "train_output_structure": encode_structure(structure)}


class TrainProgramError(ValueError):
    """The stored train-mode Program (or its feed/fetch lists) is malformed."""


def train_program_of(metadata, tensors):
    """(program, feed names, fetch names, structure) of the stored train-mode Program, its
    persistables bound to the loaded `tensors`; None when the model stores none."""
    data = metadata.get("train_program")
    if data is None:
        return None
    try:
        program = deserialize_program(data)
        feeds, fetches = list(metadata["train_feed"]), list(metadata["train_fetch"])
        gb = program.global_block()
        for name in feeds + fetches:
            if not isinstance(name, str) or not gb.has_var(name):
                raise ValueError(f"feed/fetch {name!r} is not a variable of the program")
        program.verify()  # well formed now: it is compiled only when the model first runs in train()
    except (ValueError, TypeError, KeyError) as e:
        raise TrainProgramError(str(e)) from None
    for block in program.blocks:
        for v in block.vars.values():
            if v.persistable:
                if v.name not in tensors:
                    return None
                program.bound_tensors[v.name] = tensors[v.name]
    return program, feeds, fetches, metadata.get("train_output_structure")


def check_mode(layer):
    """Raise in `forward` of a loaded model in train() whose train-mode Program was not stored."""
    if layer.training and layer._metadata.get("train_error") and layer._train is None:
        raise RuntimeError(
            "this loaded model was saved from a Layer whose forward could not be traced in train mode "
            f"({layer._metadata['train_error']}): the saved Program computes eval-mode outputs, which may "
            "silently differ from the original Layer's in train mode; call .eval() on the loaded model")
    if layer.training and layer._metadata.get("train_differs") and layer._train is None:
        raise RuntimeError(
            "this loaded model was saved from a Layer whose forward differs in train mode (e.g. dropout or "
            "batch norm) and its train-mode Program could not be stored: the saved Program computes "
            "eval-mode outputs, so running it in train() would silently differ from the original Layer; "
            "call .eval() on the loaded model, or fine-tune the original Layer and save it again")
