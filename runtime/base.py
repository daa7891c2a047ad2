"""``paddle.base`` (Paddle 2.x's ``fluid`` namespace under its 2.6+ name): the legacy names that dygraph
code and Paddle's own tests still import -- ``base.dygraph.to_variable``, ``base.dygraph.guard()``,
``base.core.eager.Tensor``, ``base.CPUPlace`` -- so that such code ports by changing its imports.
Everything here is an alias of a public runtime name; nothing is implemented twice."""
import contextlib
import types

from . import framework, unique_name
from .device import CPUPlace, is_compiled_with_cuda
from .framework import Program, default_main_program, default_startup_program, in_dynamic_mode, program_guard
from .nn import Layer, ParamAttr
from .ops.common import is_tensor
from .ops.creation import to_tensor
from .tensor import Tensor, no_grad

__all__ = ["CPUPlace", "ParamAttr", "Program", "core", "default_main_program", "default_startup_program",
           "dygraph", "framework", "in_dygraph_mode", "is_compiled_with_cuda", "program_guard", "unique_name"]


def in_dygraph_mode():
    """True outside static mode (Paddle's legacy name of ``in_dynamic_mode``)."""
    return in_dynamic_mode()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """Paddle's ``base.dygraph.to_variable``: a Tensor stays itself, anything else goes through
    ``to_tensor`` (``name`` and ``zero_copy`` only matter to Paddle's memory management)."""
    if is_tensor(value) and dtype is None:  # an eager Tensor or the Variable of a Program being built
        return value
    return to_tensor(value, dtype=dtype)


@contextlib.contextmanager
def guard(place=None):
    """Paddle's ``base.dygraph.guard(place)``: run the block in dynamic mode and restore static mode
    after it if that was on; ``place`` can only be the CPU here."""
    from .framework import disable_static, enable_static
    was_static = not in_dynamic_mode()
    if was_static:
        disable_static()
    try:
        yield
    finally:
        if was_static:
            enable_static()


dygraph = types.SimpleNamespace(to_variable=to_variable, guard=guard, no_grad=no_grad, Layer=Layer)
core = types.SimpleNamespace(eager=types.SimpleNamespace(Tensor=Tensor), is_compiled_with_cuda=is_compiled_with_cuda,
                             CPUPlace=CPUPlace)
