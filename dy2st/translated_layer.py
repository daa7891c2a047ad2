"""``TranslatedLayer``: a saved inference model as a Layer, without the user's classes.

Built only from the three files ``runtime.static.io`` reads (pure JSON and a
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
import numpy as np

import runtime as rt
from runtime.framework import Program
from runtime.pytree import TreeSpec, unflatten
from runtime.static.backends import check_backend
from runtime.static.io import bind_params, read_inference_model, save_inference_model

from .partial_program import PartialProgram


class LoadedProgram(Program):
    """A loaded Program that also answers Paddle's ``translated_layer.program()`` call."""

    def __call__(self, method_name="forward"):
        if method_name != "forward":
            raise ValueError(f"a TranslatedLayer only has the 'forward' Program, not {method_name!r}")
        return self


# -- output structure <-> JSON -----------------------------------------------------
# Saved as ``runtime.pytree``'s tree description (``TreeSpec.to_json``); models saved
# before that carry tagged dicts ({"tensor": i}, {"list": [...]}, ...), still read below.
def encode_structure(skeleton):
    """A StaticFunction output skeleton as a pytree description (JSON), or None when it holds
    constants (or dict keys) JSON cannot hold."""
    order = []
    spec = _spec_of(skeleton, order)
    if spec is None or order != list(range(len(order))):
        return None
    try:
        return spec.to_json()
    except ValueError:
        return None


def _spec_of(skeleton, order):
    kind = skeleton[0]
    if kind == "T":
        order.append(skeleton[1])
        return TreeSpec("leaf")
    if kind in ("list", "tuple", "dict"):
        pairs = skeleton[1] if kind == "dict" else [(None, s) for s in skeleton[1]]
        children = [_spec_of(s, order) for _, s in pairs]
        if any(c is None for c in children):
            return None
        if kind != "dict":
            return TreeSpec(kind, children)
        keys = tuple(k for k, _ in pairs)  # outputs are visited in the user's key order
        return TreeSpec("dict", children, meta=(keys, keys))
    return TreeSpec("const", meta=skeleton[2])


def load_structure(data, n_outputs):
    """The saved output structure: a TreeSpec, a legacy tagged dict, or None (outputs as a list)."""
    if isinstance(data, dict):
        return data if _valid_structure(data) else None
    try:
        spec = TreeSpec.from_json(data)
    except (ValueError, TypeError, IndexError):
        return None
    return spec if spec.num_leaves == n_outputs else None


def decode_structure(enc, outs):
    """The outputs ``outs`` in the saved structure ``enc`` (see ``load_structure``)."""
    if isinstance(enc, TreeSpec):
        return unflatten(enc, outs)
    (kind, body), = enc.items()
    if kind == "tensor":
        if type(body) is not int or not 0 <= body < len(outs):
            raise ValueError(f"output structure refers to output #{body!r}; the model has {len(outs)}")
        return outs[body]
    if kind == "list":
        return [decode_structure(s, outs) for s in body]
    if kind == "tuple":
        return tuple(decode_structure(s, outs) for s in body)
    if kind == "dict":
        return {k: decode_structure(s, outs) for k, s in body}
    if kind == "value":
        return body
    raise ValueError(f"unknown output structure entry {kind!r}")


def _valid_structure(enc):
    """True when ``enc`` only uses the tags decode_structure knows (checked once at load time)."""
    if not isinstance(enc, dict) or len(enc) != 1:
        return False
    (kind, body), = enc.items()
    if kind in ("tensor", "value"):
        return True
    if kind in ("list", "tuple"):
        return isinstance(body, list) and all(_valid_structure(s) for s in body)
    if kind == "dict":
        return isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                              and _valid_structure(p[1]) for p in body)
    return False


class TranslatedLayer(rt.nn.Layer):
    """A Layer running a loaded Program; ``eval()`` for inference, ``train()`` + ``parameters()`` to fine-tune."""

    def __init__(self, model, backend="numpy"):
        super().__init__()
        program = model.program
        program.__class__ = LoadedProgram
        self._program = program
        self._feed_names = list(model.feed_names)
        self._fetch_names = list(model.fetch_names)
        self._metadata = dict(model.metadata)
        self._structured = {e["name"]: e["structured_name"] for e in model.info}
        tensors = bind_params(program, model.params, model.info)
        for entry in model.info:  # the Program's order: fc1.weight before fc1.bias, as in the original Layer
            self._register(entry["structured_name"], tensors[entry["name"]])
        gb = program.global_block()
        self._inputs = [gb.var(n) for n in self._feed_names]
        self._outputs = [gb.var(n) for n in self._fetch_names]
        self._partial = PartialProgram(program, self._inputs, self._outputs, backend, "the loaded model")
        self._input_checks = [(v.name, np.dtype(str(v.dtype)), tuple(v.shape)) for v in self._inputs]
        self._structure = load_structure(self._metadata.get("output_structure"), len(self._outputs))

    @classmethod
    def load(cls, path, backend="numpy"):
        """The model saved at ``path`` (a prefix), its inference run on ``backend``."""
        check_backend(backend)  # before reading files: a typo is reported as such
        return cls(read_inference_model(path), backend=backend)

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
    def program(self):
        """The loaded Program; ``layer.program`` and Paddle's ``layer.program()`` both give it."""
        return self._program

    @property
    def feed_names(self):
        return list(self._feed_names)

    @property
    def fetch_names(self):
        return list(self._fetch_names)

    def _check_inputs(self, inputs):
        """Tensors for the feeds: dtype exact, rank and fixed dims checked (-1 dims take any size)."""
        checks = self._input_checks
        if len(inputs) != len(checks):
            raise TypeError(f"TranslatedLayer.forward() takes {len(checks)} inputs "
                            f"({', '.join(self._feed_names)}), got {len(inputs)}")
        tensors = []
        for x, (name, dt, want) in zip(inputs, checks):
            t = x if isinstance(x, rt.Tensor) else rt.to_tensor(np.asarray(x, dtype=dt))
            value = t.numpy()
            got = value.shape
            if value.dtype != dt or len(got) != len(want) or any(w not in (-1, g) for w, g in zip(want, got)):
                raise ValueError(f"input '{name}' expects dtype {dt.name} with shape {list(want)} (-1 = any size), "
                                 f"got dtype {t.dtype} with shape {list(got)}")
            tensors.append(t)
        return tensors

    def forward(self, *inputs):
        tensors = self._check_inputs(inputs)
        if not self.training and all(t.stop_gradient for t in tensors):
            with rt.no_grad():  # eval(): inference never builds the backward Program
                outs = self._partial(tensors)
        else:
            outs = self._partial(tensors)
        if self._structure is not None:
            return decode_structure(self._structure, outs)
        return outs[0] if len(outs) == 1 else outs

    def _save(self, path):
        """Write this layer (with its current parameter values) back to files."""
        save_inference_model(path, self._feed_names, self._fetch_names, program=self._program,
                             structured_names=self._structured, metadata=self._metadata)
