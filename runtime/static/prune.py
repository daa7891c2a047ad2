"""Compatibility import: ``prune`` lives in ``runtime.static.passes.prune``."""
from .passes.prune import prune

__all__ = ["prune"]
