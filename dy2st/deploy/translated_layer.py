"""``TranslatedLayer``: a saved inference model as a Layer, without the user's classes.

Built only from the three files ``runtime.static.formats.io`` reads (pure JSON and a
pickle-free npz), so a fresh process that never imported the model's module can
run it.  Parameters come back as ``rt.Parameter``s under their structured names
(``fc1.weight`` lives in a sub-layer ``fc1``, so ``state_dict()`` keys match the
original Layer's) and are bound into the Program by reference: an optimizer step
on them is seen by the next run.

Running reuses the converter's ``PartialProgram``: without gradients it runs the
compiled Program on the chosen backend (numpy, or onnxruntime for inference); when a parameter or an input needs a gradient, the outputs get
one eager tape node whose backward runs the Program's backward (built with
``rt.static.gradients``, through cond/while), so ``loss.backward()`` and any
``rt.optimizer`` fine-tune the loaded model.
"""
import os

import numpy as np

import runtime as rt
from runtime import pytree, unique_name
from runtime.framework import Program
from runtime.dispatch import to_variable
from runtime.framework import Variable
from runtime.static.backends import check_backend
from runtime.static.inline import inline_program
from runtime.static.formats.io import (
    InferenceModel,
    ProgramFormatError,
    bind_params,
    read_inference_model,
    save_inference_model,
)

from ..frontend.function_spec import OutputStructure
from ..execution.partial_program import PartialProgram
from .methods import method_files
from .mode_check import TrainProgramError, check_mode, train_program_of


class LoadedProgram(Program):
    """A loaded Program that also answers Paddle's ``translated_layer.program()`` call."""

    def __call__(self, method_name="forward"):
        if method_name != "forward":
            raise ValueError(f"a TranslatedLayer only has the 'forward' Program, not {method_name!r}")
        return self


# -- output structure <-> JSON -----------------------------------------------------
def encode_structure(structure):
    """A traced function's ``OutputStructure`` as JSON metadata, or None when it holds non-JSON constants."""
    return structure.to_json()


class _Slot:
    """Output ``index`` at a place of a structure in the older tagged format (``rows``: a list of its rows)."""

    __slots__ = ("index", "rows")

    def __init__(self, index, rows=False):
        self.index, self.rows = index, rows


def _legacy_tree(enc):
    """The tree an older model's tagged structure (``{"tensor": 0}``, ``{"list": [...]}``...) describes."""
    if not isinstance(enc, dict) or len(enc) != 1:
        raise ValueError(f"malformed entry {str(enc)[:80]!r}")
    (kind, body), = enc.items()
    if kind in ("tensor", "rows"):
        if type(body) is not int:
            raise ValueError(f"output #{body!r} is not an index")
        return _Slot(body, rows=kind == "rows")
    if kind == "value":
        return body
    if kind in ("list", "tuple") and isinstance(body, list):
        items = [_legacy_tree(s) for s in body]
        return items if kind == "list" else tuple(items)
    if kind == "dict" and isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 for p in body):
        return {k: _legacy_tree(s) for k, s in body}
    raise ValueError(f"unknown entry {kind!r}")


def decode_structure(data, num_outputs):
    """The ``OutputStructure`` of saved metadata (this format, or the tagged one older models were
    saved with), None when the model records none; ValueError when it is malformed."""
    if data is None:
        return None
    if isinstance(data, dict) and "tree" in data:
        return OutputStructure.from_json(data, num_outputs)
    slots, spec = pytree.flatten(_legacy_tree(data), _Slot, sort_keys=False)
    if any(not 0 <= s.index < num_outputs for s in slots):
        raise ValueError(f"the output structure refers to outputs {[s.index for s in slots]}; "
                         f"the model has {num_outputs}")
    return OutputStructure(spec, [s.index for s in slots], [i for i, s in enumerate(slots) if s.rows])


def _structure_of(data, num_outputs, key):
    """``decode_structure(data)``; a malformed one is a ProgramFormatError naming the metadata ``key``."""
    try:
        return decode_structure(data, num_outputs)
    except ValueError as e:
        raise ProgramFormatError(f"metadata '{key}': {e}") from None


class _TrainMode:
    """The stored train-mode Program; its PartialProgram (a compiled runner) is built on the first
    train() call: most loaded models only ever serve in eval()."""

    def __init__(self, program, feeds, fetches, backend, structure):
        self.program, self.feeds, self.fetches, self.backend = program, feeds, fetches, backend
        self.structure = structure
        self._partial = None

    def partial(self):
        if self._partial is None:
            gb = self.program.global_block()
            self._partial = PartialProgram(self.program, [gb.var(n) for n in self.feeds],
                                           [gb.var(n) for n in self.fetches], self.backend,
                                           "the loaded model in train mode")
        return self._partial


def _share_layer_tensors(owner, program, info, tensors):
    """Bind a saved method's Program to the tensors of the loaded model ``owner`` that stand for the
    same Layer attribute (its state_dict key), as the original methods share one Layer: a buffer
    one method writes is what another reads, and fine-tuning ``owner.parameters()`` moves every
    method.  A Layer tensor only this method reads is registered on ``owner`` too; tensors that
    belong to no Layer (``structured_name`` is the var name) stay the method's own."""
    state = owner.state_dict()
    for entry in info:
        name, key = entry["name"], entry["structured_name"]
        if name not in tensors or key == name:
            continue
        mine, theirs = tensors[name], state.get(key)
        if theirs is None:
            owner._register(key, mine)
            for alias in entry.get("aliases", []):
                owner._register(alias, mine)
        elif theirs.shape == mine.shape and theirs.dtype == mine.dtype:
            program.bound_tensors[name] = theirs
            tensors[name] = theirs


class TranslatedLayer(rt.nn.Layer):
    """A Layer running a loaded Program; ``eval()`` for inference, ``train()`` + ``parameters()`` to fine-tune."""

    def __init__(self, model: InferenceModel, backend: str = "numpy", owner: "TranslatedLayer | None" = None) -> None:
        super().__init__()
        program = model.program
        program.__class__ = LoadedProgram
        self._program = program
        self._feed_names = list(model.feed_names)
        self._fetch_names = list(model.fetch_names)
        self._metadata = dict(model.metadata)
        self._structured = {e["name"]: [e["structured_name"]] + e.get("aliases", []) for e in model.info}
        self._methods = {}
        tensors = bind_params(program, model.params, model.info)
        if owner is not None:
            _share_layer_tensors(owner, program, model.info, tensors)
        for t in tensors.values():
            # Paddle's loaded-name suffix: two loads of one model (or a load next to the Layer it was
            # saved from) hold tensors of distinct names, so optimizer state keyed by name stays apart.
            # The Program keeps reading each one under its saved var name (``bound_tensors``).
            t.name = unique_name.generate(f"{t.name}.load")
        for entry in model.info:  # the Program's order: fc1.weight before fc1.bias, as in the original Layer
            self._register(entry["structured_name"], tensors[entry["name"]])
        for entry in model.info:  # a shared tensor's other names, so state_dict has the original's keys
            for alias in entry.get("aliases", []):
                self._register(alias, tensors[entry["name"]])
        gb = program.global_block()
        self._inputs = [gb.var(n) for n in self._feed_names]
        self._outputs = [gb.var(n) for n in self._fetch_names]
        self._partial = PartialProgram(program, self._inputs, self._outputs, backend, "the loaded model")
        self._input_checks = [(v.name, np.dtype(str(v.dtype)), tuple(v.shape)) for v in self._inputs]
        self._structure = _structure_of(self._metadata.get("output_structure"), len(self._outputs),
                                        "output_structure")
        self._train = self._train_program(tensors, backend)
        # The saved Program is the eval-mode one: the loaded model starts in eval() and says so.
        self.eval()

    def _train_program(self, tensors, backend):
        """The stored train-mode Program (see mode_check), validated now and compiled when first run."""
        train = train_program_of(self._metadata, tensors)
        if train is None or train[1] != self._feed_names:
            return None
        program, feeds, fetches, structure = train
        return _TrainMode(program, feeds, fetches, backend, _structure_of(structure, len(fetches),
                                                                           "train_output_structure"))

    @classmethod
    def load(cls, path: str, backend: str = "numpy") -> "TranslatedLayer":
        """The model saved at ``path`` (a prefix), its inference run on ``backend``."""
        check_backend(backend)  # before reading files: a typo is reported as such
        model = read_inference_model(path)
        try:
            layer = cls(model, backend=backend)
            for name in method_files(path):  # Paddle's other converted methods, saved as `path.NAME`
                if not hasattr(layer, name):
                    method = cls(read_inference_model(f"{os.fspath(path)}.{name}"), backend, owner=layer)
                    object.__setattr__(layer, name, method)
                    layer._methods[name] = method
            return layer
        except TrainProgramError as e:  # the stored train-mode Program is part of the .pdmodel file
            raise ProgramFormatError(f"{os.fspath(path)}.pdmodel: metadata 'train_program': {e}") from None
        except ProgramFormatError as e:
            raise ProgramFormatError(f"{os.fspath(path)}.pdmodel: {e}") from None

    def _register(self, structured_name, tensor):
        """Put ``tensor`` at ``structured_name`` ('a.b.w' -> sub-layer a, its sub-layer b, its 'w')."""
        *path, leaf = structured_name.split(".")
        owner = self
        for part in path:
            sub = dict(owner.named_children()).get(part)
            if sub is None:
                sub = rt.nn.Layer()
                owner.add_sublayer(part, sub)
            owner = sub
        if owner is self and hasattr(type(self), leaf):
            leaf = f"param_{leaf}"  # never shadow a method of TranslatedLayer (e.g. 'program')
        if isinstance(tensor, rt.Parameter):
            owner.add_parameter(leaf, tensor)
        else:
            owner.register_buffer(leaf, tensor)

    # -- Paddle's TranslatedLayer surface ------------------------------------------
    @property
    def program(self) -> Program:
        """The loaded Program; ``layer.program`` and Paddle's ``layer.program()`` both give it."""
        return self._program

    @property
    def feed_names(self) -> list[str]:
        """The Program's input names, in call order."""
        return list(self._feed_names)

    @property
    def fetch_names(self) -> list[str]:
        """The Program's output names."""
        return list(self._fetch_names)

    def _input_spec(self, method_name="forward"):
        """Paddle's ``TranslatedLayer._input_spec()``: an InputSpec per input of the saved Program."""
        if method_name != "forward":
            return self._method(method_name)._input_spec()
        return [rt.static.InputSpec(v.shape, str(v.dtype), v.name) for v in self._inputs]

    def _output_spec(self, method_name="forward"):
        """Paddle's ``TranslatedLayer._output_spec()``: an InputSpec per output of the saved Program."""
        if method_name != "forward":
            return self._method(method_name)._output_spec()
        return [rt.static.InputSpec(v.shape, str(v.dtype), v.name) for v in self._outputs]

    def _method(self, name):
        method = self.__dict__.get(name)
        if not isinstance(method, TranslatedLayer):
            raise ValueError(f"the loaded model has no method {name!r}")
        return method

    def _check_inputs(self, inputs, static=False):
        """Tensors for the feeds (Variables of the Program being built when ``static``): dtype exact,
        rank and fixed dims checked (-1 dims take any size; a Variable's unknown dim is not checked)."""
        checks = self._input_checks
        if len(inputs) != len(checks):
            raise TypeError(f"TranslatedLayer.forward() takes {len(checks)} inputs "
                            f"({', '.join(self._feed_names)}), got {len(inputs)}")
        known = (rt.Tensor, Variable) if static else rt.Tensor
        tensors = []
        for x, (name, dt, want) in zip(inputs, checks):
            t = x if isinstance(x, known) else rt.to_tensor(np.asarray(x, dtype=dt))
            if static:
                t = to_variable(t)
                dtype, got = str(t.dtype), t.shape
            else:  # the array's own dtype and shape: the per-call path, no DType lookup
                value = np.asarray(t)  # the tensor's own array (numpy() copies)
                dtype, got = value.dtype, list(value.shape)
            if dtype != dt or len(got) != len(want) or any(
                    w not in (-1, g) and g != -1 for w, g in zip(want, got)):
                raise ValueError(f"input '{name}' expects dtype {dt.name} with shape {list(want)} (-1 = any size), "
                                 f"got dtype {t.dtype} with shape {got}")
            tensors.append(t)
        return tensors

    def _results(self, outs, structure):
        if structure is not None:
            return structure.rebuild(outs)
        return outs[0] if len(outs) == 1 else outs

    def forward(self, *inputs: rt.Tensor):
        check_mode(self)
        train = self._train if self.training else None  # the stored train-mode Program, when there is one
        if not rt.in_dynamic_mode():
            return self._inline(inputs, train)
        tensors = self._check_inputs(inputs)
        structure = self._structure
        if train is not None:
            partial, structure = train.partial(), train.structure
            outs = partial(tensors)
        elif not self.training and all(t.stop_gradient for t in tensors):
            with rt.no_grad():  # eval(): inference never builds the backward Program
                outs = self._partial(tensors)
        else:
            outs = self._partial(tensors)
        return self._results(outs, structure)

    def _inline(self, inputs, train):
        """Called while a Program is built (a converted function running this loaded model): its
        Program's ops are copied into that one (``runtime.static.inline``), so the outer Program's
        backward trains this layer's parameters and saving it saves one Program."""
        if train is not None:
            program, feeds, fetches, structure = train.program, train.feeds, train.fetches, train.structure
        else:
            program, feeds, fetches, structure = self._program, self._feed_names, self._fetch_names, self._structure
        xs = self._check_inputs(inputs, static=True)
        outs = inline_program(program, feeds, fetches, xs, "the loaded model")
        if not self.training and all(x.stop_gradient for x in xs):
            outs = [o.detach() for o in outs]  # as `forward` runs it eagerly: inference, under no_grad
        return self._results(outs, structure)

    def train(self) -> "TranslatedLayer":
        """train() for the model and its saved methods (one Layer in the original)."""
        super().train()
        for method in self.__dict__.get("_methods", {}).values():
            method.train()
        return self

    def eval(self) -> "TranslatedLayer":
        """eval() for the model and its saved methods."""
        super().eval()
        for method in self.__dict__.get("_methods", {}).values():
            method.eval()
        return self

    def _save(self, path):
        """Write this layer (with its current parameter values) back to files, its methods next to it."""
        save_inference_model(path, self._feed_names, self._fetch_names, program=self._program,
                             structured_names=self._structured, metadata=self._metadata)
        for name, method in self._methods.items():
            method._save(f"{os.fspath(path)}.{name}")
