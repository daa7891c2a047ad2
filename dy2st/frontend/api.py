"""The decorator and the small functions around it (Paddle's ``paddle.jit`` names)."""
import functools
import types
from collections.abc import Callable, Sequence

import runtime as rt
from runtime.nn.layer import state_changed
from runtime.static import InputSpec
from runtime.static.backends import check_backend

from ..conversion.convert_call import ignore_module, not_to_static  # noqa: F401  (re-exported)
from . import config
from .static_function import StaticFunction


def to_static(function: Callable | rt.nn.Layer | None = None, input_spec: Sequence[InputSpec] | None = None,
              full_graph: bool = True, backend: str | None = None,
              build_strategy: rt.static.BuildStrategy | None = None,
              property: bool = False) -> StaticFunction | rt.nn.Layer | Callable:  # noqa: A002 (Paddle's name)
    """Convert a function, a method or a Layer so it runs as a cached static Program.

    Usable as ``@to_static``, ``@to_static(input_spec=[...])``, ``to_static(obj.method)``
    (keeps ``obj`` as ``self``) or ``to_static(layer)`` (returns the layer, its
    ``forward`` converted).  ``backend`` is "numpy" (the default) or "onnxruntime" (Paddle's "CINN" is ``build_cinn_pass``).
    ``build_strategy`` (Paddle's graph fusion options) must be a ``rt.static.BuildStrategy``; it
    changes no result (``build_cinn_pass=True`` lets an unconvertible function run eagerly, as
    ``full_graph=False``).  ``property=True`` (Paddle's, for a method returning Python values such as
    a model's strides or labels) leaves the method a plain Python one: ``dy2st.save`` saves no
    Program for it.  Unknown keyword arguments raise TypeError.
    """
    if backend == "CINN":
        # Paddle's spelling of ``build_strategy.build_cinn_pass = True``: the same results on
        # the numpy executor, with the eager fallback for what cannot be converted
        backend, full_graph = None, False
    if backend is not None:
        check_backend(backend)
    if build_strategy is not None and not isinstance(build_strategy, rt.static.BuildStrategy):
        raise TypeError(f"to_static: build_strategy must be a rt.static.BuildStrategy, got "
                        f"{type(build_strategy).__name__}")
    if build_strategy is not None and build_strategy.build_cinn_pass:
        # Paddle 2.x's to_static with the CINN pass falls back to running eagerly (with a warning) where
        # the function cannot be converted, as full_graph=False does; without it the error is raised
        full_graph = False

    def decorate(fn):
        if property:
            if not callable(fn) or isinstance(fn, rt.nn.Layer):
                raise TypeError(f"to_static(property=True) takes a method, got {type(fn).__name__}")
            return PropertyFunction(fn)
        if isinstance(fn, rt.nn.Layer):
            layer = fn
            forward = type(layer).forward
            if isinstance(forward, StaticFunction):
                forward = forward.dygraph_function
            sf = StaticFunction(forward, input_spec=input_spec, full_graph=full_graph, backend=backend)
            layer.__dict__["forward"] = sf.__get__(layer)
            state_changed()  # an instance `forward` override: guards of traced Programs re-check
            return layer
        if isinstance(fn, StaticFunction):
            if input_spec is None and backend is None:
                return fn
            # Paddle re-converts with the new input_spec (`net.forward = to_static(net.forward,
            # input_spec=[...])` on a forward already decorated): the same function and `self`
            sf = StaticFunction(fn.dygraph_function, input_spec=input_spec if input_spec is not None else
                                fn._input_spec, full_graph=full_graph, instance=fn._instance, backend=backend or fn._backend)
            functools.update_wrapper(sf, fn.dygraph_function, updated=())
            return sf
        if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
            # A bound method: convert the function and keep its object as `self`.
            sf = StaticFunction(fn.__func__, input_spec=input_spec, full_graph=full_graph,
                                instance=fn.__self__, backend=backend)
            functools.update_wrapper(sf, fn.__func__, updated=())
            return sf
        if not callable(fn):
            raise TypeError(f"to_static expects a function, a method or a Layer, got {type(fn).__name__}")
        sf = StaticFunction(fn, input_spec=input_spec, full_graph=full_graph, backend=backend)
        functools.update_wrapper(sf, fn, updated=())
        return sf

    if function is None:
        return decorate
    return decorate(function)


class PropertyFunction:
    """A method marked ``to_static(property=True)``: called as written (its Python values are the
    point), never traced; ``layer.NAME()`` binds ``self`` like a method."""

    def __init__(self, fn):
        self.dygraph_function = fn
        functools.update_wrapper(self, fn, updated=())

    def __get__(self, instance, owner=None):
        return self if instance is None else types.MethodType(self.dygraph_function, instance)

    def __call__(self, *args, **kwargs):
        return self.dygraph_function(*args, **kwargs)


def to_code(function: Callable) -> str:
    """The transformed source of ``function`` (a function or a StaticFunction)."""
    if isinstance(function, StaticFunction):
        return function.code
    return StaticFunction(function).code


def dygraph_to_static_func(dygraph_func: Callable) -> Callable:
    """Paddle 2.x's legacy decorator for static-mode code: called while ``rt.enable_static()`` is on
    (inside a ``program_guard``), the converted function adds its ops to the current Program and
    returns its Variables; in dynamic mode, or with ``enable_to_static(False)``, it runs
    ``dygraph_func`` as written (Paddle warns and does the same)."""
    converted = StaticFunction(dygraph_func)

    @functools.wraps(dygraph_func)
    def impl(*args, **kwargs):
        if rt.in_dynamic_mode() or not config.to_static_enabled():
            return dygraph_func(*args, **kwargs)
        return converted(*args, **kwargs)

    return impl


enable_to_static = config.enable_to_static
set_code_level = config.set_code_level
set_verbosity = config.set_verbosity
