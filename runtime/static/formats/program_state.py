"""A Program's persistable state (Paddle's ``Program.state_dict`` / ``set_state_dict``), and a Program in ``rt.save``.

Persistable values live in one of two places: an eager Tensor bound into the
Program (a Layer's parameters traced by the converter) or the scope (values a
startup program made).  ``state_dict`` reads both; ``set_state_dict`` writes
each value back where it lives, checking shape and dtype::

    rt.save(main.state_dict(), "model.pdparams")
    rt.save(main, "model.pdmodel")            # the structure only, as JSON (no pickle)
    prog = rt.load("model.pdmodel")
    prog.set_state_dict(rt.load("model.pdparams"))
"""
import warnings

import numpy as np

from ...framework import Program
from ...serialization import register_type
from ...tensor import Parameter, Tensor
from .program_format import deserialize_program, serialize_program
from ..scope import global_scope

__all__ = ["state_dict", "set_state_dict", "register"]

_MODES = ("all", "param", "opt")


def _persistables(program, mode):
    seen = {}
    for v in program.list_vars():
        if not v.persistable or v.kind != "tensor" or v.name in seen:
            continue
        is_param = bool(v.trainable) or isinstance(program.bound_tensors.get(v.name), Parameter)
        if mode == "all" or (mode == "param") == is_param:
            seen[v.name] = v
    return seen


def state_dict(program, mode="all", scope=None):
    """name -> Tensor of the Program's persistable values: ``mode`` 'all', 'param' (parameters) or 'opt' (the rest)."""
    if mode not in _MODES:
        raise ValueError(f"state_dict mode must be one of {_MODES}, got {mode!r}")
    scope = global_scope() if scope is None else scope
    out = {}
    for name in _persistables(program, mode):
        bound = program.bound_tensors.get(name)
        if bound is not None:
            out[name] = bound
            continue
        value = scope.find_var(name)
        if value is None:
            raise ValueError(f"Program.state_dict: persistable variable '{name}' has no value in the scope "
                             "(run the startup program first)")
        t = Tensor(np.asarray(value))
        t.name, t.persistable = name, True
        out[name] = t
    return out


def set_state_dict(program, state_dict, scope=None):
    """Write values (Tensors or arrays, by variable name) into the Program's persistable state.

    Shapes and dtypes must match the variables (ValueError naming both);
    names the Program lacks, and variables the dict lacks, are warned about.
    """
    scope = global_scope() if scope is None else scope
    wanted = _persistables(program, "all")
    for name, value in state_dict.items():
        var = wanted.get(name)
        if var is None:
            warnings.warn(f"Program.set_state_dict: skipping '{name}', the Program has no persistable variable "
                          "of that name", stacklevel=2)
            continue
        arr = value._value if isinstance(value, Tensor) else np.asarray(value)
        shape = list(var.shape)
        if len(shape) != arr.ndim or any(d >= 0 and d != a for d, a in zip(shape, arr.shape)):
            raise ValueError(f"Program.set_state_dict: '{name}' has shape {shape} in the Program, "
                             f"the value has shape {list(arr.shape)}")
        if str(var.dtype) != str(arr.dtype):
            raise ValueError(f"Program.set_state_dict: '{name}' is {var.dtype} in the Program, "
                             f"the value is {arr.dtype}")
        bound = program.bound_tensors.get(name)
        if bound is not None:
            bound._value = np.array(arr, copy=True)
        else:
            scope[name] = np.array(arr, copy=True)
    missing = sorted(set(wanted) - set(state_dict))
    if missing:
        warnings.warn(f"Program.set_state_dict: no value given for {missing}; they keep their current values",
                      stacklevel=2)


def register():
    """Teach ``rt.save``/``rt.load`` to store a Program's structure (``Program.state_dict`` is a method)."""
    register_type(Program, "program", serialize_program, deserialize_program)
