"""``paddle.base.dygraph``: eager-mode helpers under their old names (defined in ``base``, as in Paddle)."""
from . import base
from .base import guard, no_grad, to_variable

__all__ = ["guard", "to_variable", "no_grad", "base"]
