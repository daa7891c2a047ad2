"""``dy2st.save`` / ``dy2st.load``: a converted Layer or function as an inference model.

``save(layer, path, input_spec=[InputSpec([None, 8], 'float32', 'x')])`` writes
``path.pdmodel`` / ``.pdiparams`` / ``.pdiparams.info`` (format: ``runtime.static.formats.io``);
``load(path)`` gives back a ``TranslatedLayer`` built only from those files.

Which Program is saved: a Layer is traced in ``eval()`` mode (dropout off,
batch-norm on running statistics), because the files are an inference model;
the Layer's own mode is restored afterwards.  A TranslatedLayer fine-tuned with
``train()`` therefore runs that eval-mode Program too.  Paddle saves whatever mode
the Layer is in; we prefer a model that predicts the same way every time.
"""
import inspect
import os
import types
import warnings
from collections.abc import Callable, Sequence

import runtime as rt
from runtime.grad_hooks import program_hooks
from runtime.static import InputSpec
from runtime.static.backends import check_backend
from runtime.framework import Variable
from runtime.static.formats.io import save_inference_model

from ..execution.layer_writes import with_hooks
from ..frontend.static_function import StaticFunction
from ..tools.entry import user_errors
from .input_prune import check_fits, kept_inputs, prunes_inputs
from .methods import extra_methods
from .mode_check import train_mode_entries
from .output_spec import dicts_as_sequence, select_outputs
from .translated_layer import TranslatedLayer, encode_structure

__all__ = ["save", "load", "TranslatedLayer"]


def _static_function_of(target, input_spec):
    """The StaticFunction that traces ``target`` (without changing the Layer or function)."""
    if isinstance(target, rt.nn.Layer):
        forward = target.forward
        hooks = target.forward_pre_hooks() or target.forward_post_hooks()
        if isinstance(forward, StaticFunction) and not hooks:
            return forward
        fn = type(target).forward
        if isinstance(fn, StaticFunction):
            fn = fn.dygraph_function
        if isinstance(forward, StaticFunction):
            fn = forward.dygraph_function
        if hooks:
            spec = input_spec if input_spec is not None else getattr(forward, "_input_spec", None)
            if spec is None and isinstance(forward, StaticFunction) and len(forward.program_cache):
                # a converted forward that already ran: its last inputs, as for a layer without
                # hooks (those a pre-hook handed it, as Paddle's save takes them)
                spec = _specs(forward, None)[0]
            return StaticFunction(with_hooks(fn), input_spec=spec, instance=target)
        return StaticFunction(fn, input_spec=input_spec, instance=target)
    if isinstance(target, StaticFunction):
        return target
    if isinstance(target, types.MethodType) and isinstance(target.__func__, types.FunctionType):
        # a bound method (`layer.infer`): its object stays `self`, and its parameters are saved
        return StaticFunction(target.__func__, input_spec=input_spec, instance=target.__self__)
    if callable(target):
        return StaticFunction(target, input_spec=input_spec)
    raise TypeError(f"dy2st.save expects a Layer, a to_static function or a function, got {type(target).__name__}")


def _specs(sf, input_spec):
    """InputSpecs to trace from: the given ones, the function's own, or the last Program's feeds;
    and whether they were read off Tensors (example inputs, or the inputs of the last call)."""
    if input_spec is None:
        input_spec = sf._input_spec
    if input_spec is None:
        if not len(sf.program_cache):
            raise ValueError("dy2st.save needs input_spec=[InputSpec(...)] (or a to_static function that has "
                             "already run once, or was declared with input_spec)")
        last = sf.program_cache.last()
        return [InputSpec(v.shape, v.dtype, v.name) for v in last.inputs], True
    return [_spec(s) for s in input_spec], any(isinstance(s, rt.Tensor) for s in rt.utils.flatten(input_spec))


def _check_arity(sf, specs):
    """ValueError (Paddle's) when ``specs`` are fewer than the function's required arguments."""
    try:
        params = list(inspect.signature(sf.dygraph_function).parameters.values())
    except (TypeError, ValueError):
        return
    if sf._instance is not None and params:
        params = params[1:]
    required = [p.name for p in params if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(specs) < len(required):
        raise ValueError(f"dy2st.save: input_spec gives {len(specs)} inputs, but the function needs "
                         f"{len(required)} ({', '.join(required)}); give an InputSpec for each, or declare "
                         "them with to_static(input_spec=...) and give the ones to keep")


def _any_batch(spec):
    """``spec`` with its first dim any size (nested specs alike; constants unchanged)."""
    if isinstance(spec, InputSpec):
        return InputSpec([None, *spec.shape[1:]], spec.dtype, spec.name) if spec.shape else spec
    if isinstance(spec, (list, tuple)):
        return type(spec)(_any_batch(e) for e in spec)
    if isinstance(spec, dict):
        return {k: _any_batch(v) for k, v in spec.items()}
    return spec


def _concrete(sf, specs, from_tensors):
    """The Program to save.  Shapes read off Tensors stand for one batch, and a Paddle model saved
    from them serves any batch size: trace with the first dims unknown, so that shape-dependent
    code (``x.shape[0]``) is computed when the model runs rather than frozen to the example's
    size.  Code that needs a fixed size to trace falls back to the exact shapes.  Returns the
    ConcreteProgram and the specs it was traced from."""
    if from_tensors:
        general = [_any_batch(s) for s in specs]
        if general != specs:
            try:
                return sf._get_concrete(tuple(general), {}), general
            except Exception:  # noqa: BLE001 (the exact shapes are traced next, and raise what fails)
                pass
    return sf._get_concrete(tuple(specs), {}), specs


def _spec(s):
    """One input_spec entry: an InputSpec (a Tensor gives its own); lists, tuples and dicts of
    them as to_static takes them (the saved model is fed their tensors flat, in order); a Python
    number, bool, string or None is an argument fixed in the saved Program, as Paddle keeps it."""
    if isinstance(s, InputSpec):
        return s
    if isinstance(s, rt.Tensor):
        return InputSpec.from_tensor(s)
    if isinstance(s, Variable):  # an input of a traced Program (`static_fn.inputs`), as Paddle takes them
        return InputSpec(s.shape, s.dtype, s.name)
    if isinstance(s, (list, tuple)):
        return type(s)(_spec(e) for e in s)
    if isinstance(s, dict):
        return {k: _spec(v) for k, v in s.items()}
    if s is None or isinstance(s, (bool, int, float, str)):
        return s
    raise TypeError(f"dy2st.save: input_spec entries must be InputSpec or Tensor (or lists, dicts "
                    f"of them, or Python constants), got {type(s).__name__}")


def _bound_names(program):
    """Names of the persistables the saved (eval) Program reads: the parameters saved with it."""
    return {v.name for b in program.blocks for v in b.vars.values() if v.persistable}


def _structured_names(layer, program):
    """Var name -> its ``state_dict`` keys (the first, then the other names of a tensor that layers
    share: tied weights, ``nn.LSTM``'s flat names) for every bound tensor that belongs to ``layer``,
    so the loaded layer's ``state_dict`` has the original's keys."""
    if layer is None:
        return {}
    by_id = {}
    for key, t in layer.state_dict().items():
        by_id.setdefault(id(t), []).append(key)
    for key, t in layer.named_parameters():
        by_id.setdefault(id(t), [key])
    return {name: by_id[id(t)] for name, t in program.bound_tensors.items() if id(t) in by_id}


class UnsupportedConfigError(TypeError, ValueError):
    """An unknown keyword of ``save``/``load``: the TypeError of a Python call, and the ValueError
    ``paddle.jit.save``/``load`` raise for a config they do not support (``model_filename``...)."""


# Paddle's `configs` keywords of paddle.jit.save that mean nothing here but are harmless.
# (skip_prune_program: the saved Program is always pruned to the outputs, which computes the same.)
_SAVE_CONFIGS = frozenset({"output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward",
                           "input_names_after_prune", "skip_prune_program"})


@user_errors("dy2st.save")
def save(layer: rt.nn.Layer | Callable, path: str, input_spec: Sequence[InputSpec] | None = None, **configs) -> None:
    """Save ``layer`` (a Layer, a to_static function or a TranslatedLayer) as an inference model.

    ``input_spec``: list of ``InputSpec`` (``None`` dims for any size); their names
    become the feed names.  Without it, the function's own input_spec or the
    signature of its last traced Program is used.  ``output_spec``: the outputs to keep
    (see ``dy2st.deploy.output_spec``; the Program is pruned to them).  Paddle's other ``configs``
    keywords are accepted and ignored; any other keyword is a TypeError.
    """
    unknown = sorted(set(configs) - _SAVE_CONFIGS)
    if unknown:
        raise UnsupportedConfigError(f"dy2st.save() got unexpected keyword argument(s) "
                                     f"{', '.join(map(repr, unknown))}")
    if isinstance(layer, TranslatedLayer):
        if configs.get("output_spec") is not None:  # its Program is fixed: choosing outputs needs a trace
            raise ValueError("dy2st.save: output_spec cannot re-select the outputs of a loaded model; give it "
                             "when saving the Layer or function")
        layer._save(path)
        return
    if isinstance(layer, rt.DataParallel):  # Paddle saves the Layer it wraps
        layer = layer._layers
    methods = extra_methods(layer)
    if methods and input_spec is not None:
        raise ValueError("If there are static functions other than 'forward' that need to be saved, the input "
                         f"'input_spec' should be None, but received the type of 'input_spec' is "
                         f"{type(input_spec)} (dy2st.save: {', '.join(methods)} are saved from their own "
                         "input_spec or last call)")
    for name, method in methods.items():  # checked before any file is written
        if method._input_spec is None and not len(method.program_cache):
            raise ValueError(f"No valid transformed program for function: {name}: give it an input_spec in "
                             "to_static, or call it once before dy2st.save")
    if not configs.get("skip_forward"):
        _save_function(_static_function_of(layer, input_spec), layer, path, input_spec, configs)
    for name, method in methods.items():  # Paddle's files: `path.NAME.pdmodel`... (dy2st.load finds them)
        _save_function(method, layer, f"{os.fspath(path)}.{name}", None, {})


def _save_function(sf, layer, path, input_spec, configs):
    """Trace ``sf`` (eval mode) from ``input_spec`` (see ``_specs``) and write it at ``path``."""
    instance = layer if isinstance(layer, rt.nn.Layer) else sf._instance
    specs, from_tensors = _specs(sf, input_spec)
    declared = sf._input_spec
    names_after_prune = configs.get("input_names_after_prune")
    pruning = prunes_inputs(declared, specs if input_spec is not None else None, names_after_prune)
    if pruning and declared is not None:  # the declared inputs trace the Program; the given ones say which are fed
        given, specs, from_tensors = specs, _specs(sf, None)[0], False
    elif pruning:  # no declared inputs: the given ones trace it, input_names_after_prune says which are fed
        given = specs
    else:
        check_fits(declared, specs)
        _check_arity(sf, specs)
    modes = [(sub, sub.training) for sub in instance.sublayers(include_self=True)] if instance is not None else []
    if instance is not None:
        instance.eval()
    try:
        with sf.traced_aside():  # saving leaves the function's program_cache as the calls left it
            concrete, specs = _concrete(sf, specs, from_tensors)
    finally:
        for sub, training in modes:  # each sub-layer's own mode, not just the top one's
            sub.training = training
    program = concrete.main_program
    hooked = program_hooks(program)
    if hooked:
        warnings.warn(f"dy2st.save: the gradient hooks (register_hook) on {hooked[:3]} are Python functions and are "
                      "not saved: the loaded model runs the same, but fine-tuning it computes gradients without "
                      "them", stacklevel=4)  # the caller of dy2st.save
    writes = getattr(concrete, "layer_writes", None)
    written = getattr(concrete, "written_inputs", None)  # an argument's written value: not the model's output
    boxes = getattr(concrete, "written_containers", None)  # a tensor written into a list/dict argument: same
    extra = sum(w.count for w in (writes, written, boxes) if w is not None)
    outputs = concrete.outputs[:len(concrete.outputs) - extra]
    selected, skeleton = select_outputs(configs.get("output_spec"), outputs, concrete.out_skeleton, sf, concrete)
    chosen = None if selected is outputs else (
        [next(k for k, v in enumerate(outputs) if v is s) for s in selected], len(outputs))
    outputs = selected
    skeleton = dicts_as_sequence(skeleton)
    inputs = kept_inputs(concrete.inputs, given, names_after_prune) if pruning else concrete.inputs
    metadata = {"output_structure": encode_structure(skeleton),
                "function": getattr(sf, "__name__", "forward"), "traced_in": "eval"}
    with sf.traced_aside():
        metadata.update(train_mode_entries(sf, specs, instance, program, _bound_names(program), encode_structure,
                                           chosen))
    buffers = writes.buffer_writes(concrete.outputs, program) if writes is not None else []
    save_inference_model(path, inputs, outputs, program=program,
                         structured_names=_structured_names(instance, program), metadata=metadata, writes=buffers)


def model_prefix(path):
    """The path prefix of a saved model, given the prefix or its ``.pdmodel`` file."""
    path = os.fspath(path)
    return path[:-len(".pdmodel")] if path.endswith(".pdmodel") else path


@user_errors("dy2st.load")
def load(path: str, backend: str | None = None, **configs) -> TranslatedLayer:
    """A ``TranslatedLayer`` from ``path.pdmodel``/``.pdiparams``/``.pdiparams.info`` (no user code needed).

    ``path`` is the prefix given to ``save`` (the ``.pdmodel`` file's path works too), or, with Paddle's
    ``model_filename``/``params_filename`` configs, the folder holding ``NAME.pdmodel``/``NAME.pdiparams``.
    ``backend``: "numpy" (the default) or "onnxruntime".  Unknown keywords are a TypeError.
    """
    model_file, params_file = configs.pop("model_filename", None), configs.pop("params_filename", None)
    if configs:
        raise UnsupportedConfigError(f"dy2st.load() got unexpected keyword argument(s) "
                                     f"{', '.join(map(repr, sorted(configs)))}")
    if model_file is not None or params_file is not None:
        stem = model_prefix(os.fspath(model_file or ""))
        if not model_file or stem == os.fspath(model_file) or (
                params_file is not None and os.fspath(params_file) != stem + ".pdiparams"):
            raise ValueError(f"dy2st.load: model_filename {model_file!r} and params_filename {params_file!r} must "
                             "name one saved model's NAME.pdmodel and NAME.pdiparams in the folder path")
        path = os.path.join(os.fspath(path), stem)
    check_backend(backend or "numpy")
    return TranslatedLayer.load(model_prefix(path), backend=backend or "numpy")
