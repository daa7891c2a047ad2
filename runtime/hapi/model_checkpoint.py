"""``ModelCheckpoint``: the save/load half of ``rt.Model`` (``Model.save``, ``Model.load``), which
``Model`` inherits, and ``INFERENCE_SAVER``, where dy2st puts its ``dy2st.save`` for
``Model.save(training=False)`` (``runtime.hapi.model`` re-exports the same list).

The methods read the Model's ``network``, ``_optimizer``, ``_scaler`` and input specs, which
``model.py`` sets.
"""
import os
import warnings

from ..serialization import load, save
from ..static import InputSpec

# dy2st.save(layer, path, input_spec), put here by dy2st when it is imported: Model.save(training=False)
INFERENCE_SAVER = []


class ModelCheckpoint:
    """The save/load methods of ``Model`` (a base class of it, not used alone)."""

    def save(self, path, training=True):
        """Save ``path.pdparams`` (the network's state dict) and ``path.pdopt`` (the optimizer's) with
        ``rt.save``; ``training=False`` writes an inference model with the converter ``dy2st.save``,
        which registers itself here when imported (the runtime never imports it)."""
        if not training:
            specs = None
            if self._given_inputs:  # the user's specs, else the shapes of the last batch run
                specs = [InputSpec(s.shape, s.dtype, s.name) for s in self._inputs]
            elif self._input_info is not None:
                specs = [InputSpec([None] + s[1:], d) for s, d in zip(*self._input_info)]
            if INFERENCE_SAVER and specs:
                return INFERENCE_SAVER[0](self.network, path, specs)
            shown = ", ".join(f"InputSpec({[None if d == -1 else d for d in s.shape]}, '{s.dtype}', '{s.name}')"
                              for s in specs or [])
            raise NotImplementedError(
                "Model.save(path, training=False) writes an inference model, which needs the dy2st converter "
                "(import dy2st first) and the inputs' specs (Model(inputs=...) or a batch run first): call "
                f"dy2st.save(model.network, path, input_spec=[{shown or 'InputSpec(shape, dtype), ...'}]) instead")
        if not os.path.basename(path):
            raise ValueError(f"Model.save: path must be 'dirname/file_prefix' or 'file_prefix', got {path!r}")
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None and self._optimizer.state_dict():
            save(self._optimizer.state_dict(), path + ".pdopt")
        if self._scaler is not None and self._scaler.state_dict():
            save(self._scaler.state_dict(), path + ".pdscaler")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Restore the parameters from ``path.pdparams`` (matched by structured name) and, unless
        ``reset_optimizer``, the optimizer from ``path.pdopt`` when it exists.  A missing or misshapen
        parameter is a ValueError, or with ``skip_mismatch`` a warning (and the optimizer is reset)."""
        path, ext = os.path.splitext(path)
        if ext not in ("", ".pdparams", ".pdopt", ".pdmodel"):
            path += ext  # a prefix with a dot in it, not a suffix
        if not os.path.exists(path + ".pdparams"):
            raise FileNotFoundError(f"Model.load: no parameters at '{path}.pdparams', please check path")
        param_state = load(path + ".pdparams")
        matched = []
        for key, param in self.network.state_dict().items():
            state = param_state.get(key)
            if state is None:
                err = f"{key} is not found in the providing file."
            elif list(state.shape) != list(param.shape):
                err = f"{key} receives a shape {list(state.shape)}, but the expected shape is {list(param.shape)}."
            else:
                matched.append((param, state))
                continue
            if not skip_mismatch:
                raise ValueError(err)
            warnings.warn(f"Skip loading for {key}. " + err, stacklevel=2)
            reset_optimizer = True
        for param, state in matched:
            param.set_value(state)
        if self._scaler is not None and os.path.exists(path + ".pdscaler"):
            self._scaler.load_state_dict(load(path + ".pdscaler"))
        if self._optimizer is not None and not reset_optimizer and os.path.exists(path + ".pdopt"):
            self._optimizer.set_state_dict(load(path + ".pdopt"))
