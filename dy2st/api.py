"""The decorator and the small functions around it (Paddle's ``paddle.jit`` names)."""
import functools

import runtime as rt

from . import config
from .convert_call import not_to_static  # noqa: F401  (re-exported)
from .static_function import StaticFunction


def to_static(function=None, input_spec=None, full_graph=True, backend="numpy", **kwargs):
    """Convert a function, a method or a Layer so it runs as a cached static Program.

    Usable as ``@to_static``, ``@to_static(input_spec=[...])`` or
    ``to_static(layer)`` (returns the layer, its ``forward`` converted).  ``backend``
    ("numpy" or "onnxruntime") runs inference; training always runs on numpy.
    """
    def decorate(fn):
        if isinstance(fn, rt.nn.Layer):
            layer = fn
            forward = type(layer).forward
            if isinstance(forward, StaticFunction):
                forward = forward.dygraph_function
            sf = StaticFunction(forward, input_spec=input_spec, full_graph=full_graph, backend=backend)
            layer.__dict__["forward"] = sf.__get__(layer)
            return layer
        if isinstance(fn, StaticFunction):
            return fn
        if not callable(fn):
            raise TypeError(f"to_static expects a function, a method or a Layer, got {type(fn).__name__}")
        sf = StaticFunction(fn, input_spec=input_spec, full_graph=full_graph, backend=backend)
        functools.update_wrapper(sf, fn, updated=())
        return sf

    if function is None:
        return decorate
    return decorate(function)


def to_code(function):
    """The transformed source of ``function`` (a function or a StaticFunction)."""
    if isinstance(function, StaticFunction):
        return function.code
    return StaticFunction(function).code


enable_to_static = config.enable_to_static
set_code_level = config.set_code_level
set_verbosity = config.set_verbosity
