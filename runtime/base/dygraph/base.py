"""``paddle.base.dygraph.base``: the dygraph helpers Paddle's own code imports from here."""
import contextlib
import functools

import numpy as np

from ...framework import disable_static, enable_static, in_dynamic_mode
from ...ops.common import is_tensor
from ...ops.creation import to_tensor
from ...tensor import no_grad

__all__ = ["guard", "no_grad", "switch_to_static_graph", "to_variable"]


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """Paddle's ``base.dygraph.to_variable``: a Tensor (or the Variable of a Program being built) stays
    itself (``dtype`` casts it), a numpy array or Python number/list goes through ``to_tensor``, keeping
    an array's dtype; ``name`` and ``zero_copy`` only matter to Paddle's memory management."""
    if is_tensor(value):
        return value if dtype is None else value.astype(dtype)
    if not isinstance(value, (np.ndarray, np.generic, list, tuple, int, float, bool, complex)):
        raise TypeError("to_variable expects a numpy.ndarray, a Tensor or a Python number/list, "
                        f"got {type(value).__name__}")
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
