"""``rt.static``: build Programs, run them with the Executor, differentiate them.

    x = rt.static.data("x", [None, 4])
    y = rt.static.nn.fc(x, 3, activation="relu")
    exe = rt.static.Executor()
    exe.run(rt.static.default_startup_program())
    out, = exe.run(feed={"x": arr}, fetch_list=[y])
"""
from ..framework import (Block, Operator, Program, Variable, default_main_program, default_startup_program,
                         program_guard)
from . import control_flow_ops  # noqa: F401  (registers cond/while/while_grad/assert/print)
from . import nn
from .build_strategy import BuildStrategy
from .backward import append_backward, gradients
from .control_flow import cond, while_loop
from .executor import Executor, compile_block, segment_inputs
from .input import InputSpec, create_global_var, data
from .formats.io import save_inference_model, load_inference_model, serialize_program, deserialize_program
from .formats import io  # noqa: E402  (paddle.static.io.load_inference_model...)
from .scope import Scope, global_scope, scope_guard
from ..metric import accuracy  # Paddle 2.x code calls it as paddle.static.accuracy

__all__ = ["Block", "Operator", "Program", "Variable", "default_main_program", "default_startup_program",
           "program_guard", "nn", "append_backward", "gradients", "cond", "while_loop", "Executor",
           "compile_block", "segment_inputs", "InputSpec", "create_global_var", "data", "Scope", "global_scope", "scope_guard",
           "save_inference_model", "load_inference_model", "accuracy"]
__all__ += ["BuildStrategy"]
