"""``paddle.base`` (``paddle.fluid`` before Paddle 2.5): the few names code written for Paddle still
reaches through it (``base.dygraph.to_variable``, ``base.dygraph.guard``, places, Programs)."""
from ..device import CPUPlace, is_compiled_with_cuda
from ..static import (Executor, Program, default_main_program, default_startup_program,
                      program_guard)
from .. import unique_name
from ..nn import ParamAttr
from . import core, dygraph

__all__ = ["CPUPlace", "is_compiled_with_cuda", "Executor", "Program", "default_main_program",
           "default_startup_program", "program_guard", "unique_name", "ParamAttr", "core", "dygraph"]
