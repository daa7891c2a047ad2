"""``paddle.base.framework``: the framework names Paddle's own code imports from this path."""
from .. import unique_name  # noqa: F401  (paddle.base.framework.unique_name)
from ..framework import *  # noqa: F401,F403
from ..framework import (Program, Variable, _current_expected_place, _set_expected_place,  # noqa: F401
                         default_main_program, default_startup_program, in_dynamic_mode, program_guard)


def in_dygraph_mode():
    """True outside static mode (Paddle's legacy name of ``in_dynamic_mode``)."""
    return in_dynamic_mode()


def use_pir_api():
    """False: Programs here are this project's IR, not Paddle's PIR (code checking it takes the
    legacy-IR path, e.g. ``paddle.jit.save`` of a model)."""
    return False
