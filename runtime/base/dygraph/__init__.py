"""``paddle.base.dygraph``: ``to_variable``, ``guard``, ``no_grad`` and ``Layer`` under their legacy names."""
from . import base
from .base import guard, no_grad, to_variable
from ...nn import Layer

__all__ = ["Layer", "base", "guard", "no_grad", "to_variable"]
