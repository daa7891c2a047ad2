"""``rt.Model``, ``rt.summary``, ``rt.flops`` and ``rt.callbacks``: Paddle's high-level API (``paddle.hapi``)."""
from . import callbacks
from .model import Model
from .model_summary import flops, summary

__all__ = ["Model", "summary", "flops", "callbacks"]
