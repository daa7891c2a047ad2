"""``LayerStateDict``: the checkpoint half of ``Layer``, ``state_dict()`` and ``set_state_dict()``
(with Paddle's aliases ``set_dict``/``load_dict``). ``Layer`` inherits it; the methods read the
layer's tables (``_parameters``, ``_buffers``, ``_non_persistable_buffer_names``) and its
``named_sublayers``, which ``layer.py`` defines.
"""
import collections
import warnings

import numpy as np

from ..tensor import Tensor
from ..variable import Variable


class LayerStateDict:
    """The state-dict methods of ``Layer`` (a base class of it, not used alone)."""

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True):
        """Parameters and persistable buffers under structured names, layer by layer (Paddle's order)."""
        out = collections.OrderedDict() if destination is None else destination
        prefix = structured_name_prefix.rstrip(".")
        layers = (self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers
                  else [(prefix, self)])
        seen = set()
        for lp, layer in layers:
            entries = list(layer._parameters.items()) + [
                (k, b) for k, b in layer._buffers.items() if k not in layer._non_persistable_buffer_names]
            for name, t in entries:
                if t is not None and id(t) not in seen:
                    seen.add(id(t))
                    out[f"{lp}.{name}" if lp else name] = t
        return out

    def set_state_dict(self, state_dict, use_structured_name=True, strict=False):
        """Copy values into this layer's parameters and buffers (in place, so bound Programs see them);
        returns ``(missing, unexpected)`` keys.

        As Paddle's: a key of the layer the dict lacks is skipped with a UserWarning ("Skip loading
        for ..."), and keys the layer does not have are ignored (a backbone's weights load into a model
        with another head; a Paddle RNN's flat ``weight_ih_l0`` aliases load by their cell names).
        ``strict=True`` raises ValueError for either instead.  A shape mismatch always raises.
        """
        own = self.state_dict()
        if not use_structured_name:
            own = collections.OrderedDict((t.name, t) for t in own.values())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise ValueError(f"set_state_dict of {type(self).__name__}: missing keys {missing}, "
                             f"unexpected keys {unexpected}")
        for key in missing:
            warnings.warn(f"Skip loading for {key}. {key} is not found in the provided dict.", stacklevel=2)
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if isinstance(value, Variable):
                # a value computed while a Program is built has no array to copy, and the copy
                # would happen once, at trace time, not at every run as eager code does it
                raise ValueError(
                    f"set_state_dict of {type(self).__name__}: '{key}' is a value computed inside a "
                    "converted function, known only when its Program runs; setting parameters from it "
                    "is not supported there. Call set_state_dict outside the converted function (in "
                    "__init__, or before calling it)")
            arr = value._value if isinstance(value, Tensor) else np.asarray(value)
            if tuple(arr.shape) != tuple(target._value.shape):
                raise ValueError(f"set_state_dict of {type(self).__name__}: '{key}' has shape {list(arr.shape)} "
                                 f"in the state dict but {target.shape} in the layer")
            target._value = np.array(arr, dtype=target._value.dtype, copy=True)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict
