"""The one random generator behind parameter init, ``rand*`` and dropout.

``seed(n)`` resets it, so a model built and trained after ``rt.seed(n)`` is
repeatable (eager and static runs draw from the same stream).
"""
import numpy as np


class _RNG:
    gen = np.random.default_rng(0)


_rng = _RNG()


def seed(n):
    """Make parameter init, ``rand*`` and dropout repeatable."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"seed expects a non-negative int, got {n!r}")
    _rng.gen = np.random.default_rng(int(n))
    return n


def generator():
    return _rng.gen
