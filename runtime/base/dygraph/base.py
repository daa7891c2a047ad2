"""``paddle.base.dygraph.base``: the dygraph helpers Paddle's own code imports from here."""
import contextlib
import functools

from ...framework import disable_static, enable_static, in_dynamic_mode
from ...ops.common import is_tensor
from ...ops.creation import to_tensor
from ...tensor import no_grad

__all__ = ["guard", "no_grad", "switch_to_static_graph", "to_variable"]


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
    was_static = not in_dynamic_mode()
    if was_static:
        disable_static()
    try:
        yield
    finally:
        if was_static:
            enable_static()


def switch_to_static_graph(func):
    """Paddle's decorator: ``func`` runs in static mode, and the mode it was called in comes back."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        was_dynamic = in_dynamic_mode()
        if was_dynamic:
            enable_static()
        try:
            return func(*args, **kwargs)
        finally:
            if was_dynamic:
                disable_static()
    return wrapper
