"""``paddle.base.dygraph.base``: eager-mode helpers under their old names (``paddle.base.dygraph``
re-exports them)."""
import contextlib

import numpy as np

from ...framework import disable_static, enable_static, in_dynamic_mode
from ...ops.common import is_tensor
from ...ops.creation import to_tensor
from ...tensor import no_grad

__all__ = ["guard", "to_variable", "no_grad"]


@contextlib.contextmanager
def guard(place=None):
    """Run the block in eager (dygraph) mode, restoring static mode after it if it was on."""
    was_static = not in_dynamic_mode()
    if was_static:
        disable_static()
    try:
        yield
    finally:
        if was_static:
            enable_static()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A Tensor from a numpy array, a Tensor (returned as it is) or a Python number/list.

    Paddle keeps a numpy array's dtype here (to_tensor would too); ``dtype`` casts."""
    if is_tensor(value):
        return value if dtype is None else value.astype(dtype)
    if not isinstance(value, (np.ndarray, np.generic, list, tuple, int, float, bool, complex)):
        raise TypeError("to_variable expects a numpy.ndarray, a Tensor or a Python number/list, "
                        f"got {type(value).__name__}")
    return to_tensor(value, dtype=dtype)
