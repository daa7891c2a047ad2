"""``rt.static.nn``: layers and control flow for hand-built Programs (fc, cond, while_loop, case, switch_case,
Assert, Print)."""
import math

import numpy as np

from ..dispatch import apply, to_variable
from ..framework import Variable, default_main_program, default_startup_program, in_dynamic_mode
from ..registry import activation_names, functional_functions
from ..tensor import Tensor
from .control_flow import cond, while_loop
from .control_flow_case import case, switch_case
from .control_flow_ops import _error_type, format_values

__all__ = ["fc", "cond", "while_loop", "case", "switch_case", "Assert", "Print"]

# fc(activation=name): the functional activations the op declarations mark (``activation=True``).
_FUNCTIONS = functional_functions()
_ACTIVATIONS = {name: _FUNCTIONS[name] for name in activation_names()}


def _parameter(name, shape, dtype, init_op, init_attrs):
    """A persistable trainable var in the main program, initialised by an op in the startup program."""
    main = default_main_program().global_block()
    startup = default_startup_program().global_block()
    p = main.create_var(name=name, shape=shape, dtype=dtype, persistable=True, stop_gradient=False)
    p.trainable = True
    s = startup.create_var(name=name, shape=shape, dtype=dtype, persistable=True, stop_gradient=False)
    s.trainable = True
    startup.append_op(init_op, {}, {"Out": [name]}, dict(init_attrs, shape=list(shape), dtype=str(dtype)))
    return p


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """``activation(x @ W + b)`` with W Xavier-uniform and b zero (initialised by the startup program)."""
    if not isinstance(x, Variable):
        raise TypeError(f"static.nn.fc expects a static Variable, got {type(x).__name__}")
    if num_flatten_dims != len(x.shape) - 1:
        x = apply("flatten", x, start_axis=num_flatten_dims, stop_axis=-1) if len(x.shape) > 2 else x
    in_features = x.shape[-1]
    if in_features < 0:
        raise ValueError(f"static.nn.fc: the last dim of '{x.name}' must be known, got shape {x.shape}")
    prefix = default_main_program().unique_name(name or "fc")
    limit = math.sqrt(6.0 / (in_features + size))
    w = _parameter(f"{prefix}.w_0", [in_features, size], x.dtype, "uniform_random", {"min": -limit, "max": limit})
    out = apply("matmul", x, w)
    if bias_attr is not False:
        b = _parameter(f"{prefix}.b_0", [size], x.dtype, "fill_constant", {"value": 0.0})
        out = apply("add", out, b)
    if activation is not None:
        if activation not in _ACTIVATIONS:
            raise ValueError(f"static.nn.fc: unknown activation {activation!r}; expected one of "
                             f"{sorted(_ACTIVATIONS)}")
        out = _ACTIVATIONS[activation](out)
    return out


def _static(*xs):
    return not in_dynamic_mode() or any(isinstance(x, Variable) for x in xs)


def Assert(cond, message=None, data=None, summarize=20, name=None, error=None):  # noqa: N802 (Paddle's name)
    """Raise AssertionError(message) when ``cond`` is False (at run time for a static ``cond``);
    ``error``: the name of a built-in exception class to raise instead."""
    data = list(data or [])
    if not _static(cond, *data):
        if not np.all(np.asarray(cond._value if isinstance(cond, Tensor) else cond)):
            msg = message or "Assert failed"
            if data:
                msg += " " + format_values([np.asarray(d) for d in data], [], "", summarize)
            raise _error_type(error or "")(msg)
        return None
    block = default_main_program().current_block()
    c = to_variable(cond)
    ds = [to_variable(d) for d in data]
    block.append_op("assert", {"Cond": [c.name], "Data": [d.name for d in ds]}, {},
                    {"message": message or "", "summarize": summarize, "error": error or ""})
    return None


def Print(*inputs, message=None, summarize=20, name=None):  # noqa: N802 (Paddle's name)
    """Print the inputs' values (at every run of the Program when static); returns the inputs."""
    if not _static(*inputs):
        print(format_values([np.asarray(x) for x in inputs], [getattr(x, "name", None) or f"arg{i}"
                                                               for i, x in enumerate(inputs)],
                            message or "", summarize), flush=True)
    else:
        block = default_main_program().current_block()
        vs = [to_variable(x) for x in inputs]
        # every declared attribute, as for the template form below: a saved Program's loader checks them all
        block.append_op("print", {"X": [v.name for v in vs]}, {},
                        {"message": message or "", "names": [v.name for v in vs], "summarize": summarize,
                         "template": [], "stop_gradients": [], "end": "\n"})
    return inputs[0] if len(inputs) == 1 else inputs


def print_template(tensors, template, end="\n"):
    """Append a ``print`` op that prints like eager ``print``: ``template`` holds ``["s", text]``
    pieces and one ``["t", format_spec, conversion]`` piece per tensor, in order (how converted
    code keeps ``print("loss", y)`` and ``print(f"{y}")`` printing real values at every run)."""
    block = default_main_program().current_block()
    vs = [to_variable(t) for t in tensors]
    block.append_op("print", {"X": [v.name for v in vs]}, {},
                    # message/summarize too: the loader of a saved Program checks every declared
                    # attribute, and a print left in a cond's block is saved (one in block 0 is pruned)
                    {"message": "", "summarize": 20,
                     "template": [list(p) for p in template], "end": end, "names": [v.name for v in vs],
                     "stop_gradients": [bool(getattr(t, "stop_gradient", True)) for t in tensors]})
