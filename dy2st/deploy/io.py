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
import os
import types
import warnings
from collections.abc import Callable, Sequence

import runtime as rt
from runtime.grad_hooks import program_hooks
from runtime.static import InputSpec
from runtime.static.backends import check_backend
from runtime.static.formats.io import save_inference_model

from ..execution.layer_writes import with_hooks
from ..frontend.static_function import StaticFunction
from ..tools.entry import user_errors
from .mode_check import train_mode_entries
from .output_spec import select_outputs
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
                spec = _specs(forward, None)
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
    """InputSpecs to trace from: the given ones, the function's own, or the last Program's feeds."""
    if input_spec is None:
        input_spec = sf._input_spec
    if input_spec is None:
        if not len(sf.program_cache):
            raise ValueError("dy2st.save needs input_spec=[InputSpec(...)] (or a to_static function that has "
                             "already run once, or was declared with input_spec)")
        last = sf.program_cache.last()
        return [InputSpec(v.shape, v.dtype, v.name) for v in last.inputs]
    return [_spec(s) for s in input_spec]


def _spec(s):
    """One input_spec entry: an InputSpec (a Tensor gives its own); lists, tuples and dicts of
    them as to_static takes them (the saved model is fed their tensors flat, in order); a Python
    number, bool, string or None is an argument fixed in the saved Program, as Paddle keeps it."""
    if isinstance(s, InputSpec):
        return s
    if isinstance(s, rt.Tensor):
        return InputSpec.from_tensor(s)
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
    """Var name -> ``state_dict`` key for every bound tensor that belongs to ``layer``."""
    if layer is None:
        return {}
    by_id = {}
    for key, t in layer.state_dict().items():
        by_id.setdefault(id(t), key)
    for key, t in layer.named_parameters():
        by_id.setdefault(id(t), key)
    return {name: by_id[id(t)] for name, t in program.bound_tensors.items() if id(t) in by_id}


# Paddle's `configs` keywords of paddle.jit.save that mean nothing here but are harmless.
_SAVE_CONFIGS = frozenset({"output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward"})


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
        raise TypeError(f"dy2st.save() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}")
    if isinstance(layer, TranslatedLayer):
        if configs.get("output_spec") is not None:  # its Program is fixed: choosing outputs needs a trace
            raise ValueError("dy2st.save: output_spec cannot re-select the outputs of a loaded model; give it "
                             "when saving the Layer or function")
        layer._save(path)
        return
    sf = _static_function_of(layer, input_spec)
    instance = layer if isinstance(layer, rt.nn.Layer) else sf._instance
    specs = _specs(sf, input_spec)
    modes = [(sub, sub.training) for sub in instance.sublayers(include_self=True)] if instance is not None else []
    if instance is not None:
        instance.eval()
    try:
        concrete = sf.get_concrete_program(*specs)
    finally:
        for sub, training in modes:  # each sub-layer's own mode, not just the top one's
            sub.training = training
    program = concrete.main_program
    hooked = program_hooks(program)
    if hooked:
        warnings.warn(f"dy2st.save: the gradient hooks (register_hook) on {hooked[:3]} are Python functions and are "
                      "not saved: the loaded model runs the same, but fine-tuning it computes gradients without "
                      "them", stacklevel=2)
    writes = getattr(concrete, "layer_writes", None)
    written = getattr(concrete, "written_inputs", None)  # an argument's written value: not the model's output
    extra = (writes.count if writes is not None else 0) + (written.count if written is not None else 0)
    outputs = concrete.outputs[:len(concrete.outputs) - extra]
    outputs, skeleton = select_outputs(configs.get("output_spec"), outputs, concrete.out_skeleton, sf, concrete)
    metadata = {"output_structure": encode_structure(skeleton),
                "function": getattr(sf, "__name__", "forward"), "traced_in": "eval"}
    metadata.update(train_mode_entries(sf, specs, instance, program, _bound_names(program), encode_structure))
    save_inference_model(path, concrete.inputs, outputs, program=program,
                         structured_names=_structured_names(instance, program), metadata=metadata)


def model_prefix(path):
    """The path prefix of a saved model, given the prefix or its ``.pdmodel`` file."""
    path = os.fspath(path)
    return path[:-len(".pdmodel")] if path.endswith(".pdmodel") else path


@user_errors("dy2st.load")
def load(path: str, backend: str | None = None, **configs) -> TranslatedLayer:
    """A ``TranslatedLayer`` from ``path.pdmodel``/``.pdiparams``/``.pdiparams.info`` (no user code needed).

    ``path`` is the prefix given to ``save`` (the ``.pdmodel`` file's path works too).
    ``backend``: "numpy" (the default) or "onnxruntime".  Unknown keywords are a TypeError.
    """
    if configs:
        raise TypeError(f"dy2st.load() got unexpected keyword argument(s) {', '.join(map(repr, sorted(configs)))}")
    check_backend(backend or "numpy")
    return TranslatedLayer.load(model_prefix(path), backend=backend or "numpy")
