"""The one random generator behind parameter init, ``rand*`` and dropout.

``seed(n)`` resets it, so a model built and trained after ``rt.seed(n)`` is
repeatable (eager and static runs draw from the same stream).

The generator is shared by the process (numpy Generators lock around each draw, so
threads may draw at once); a thread can draw from its own generator for a ``with``
body (``generator_guard``), which is how a ``cond`` gradient replays the random draws
of its forward branch without moving the shared stream under other threads' feet.
"""
import contextlib
import contextvars

import numpy as np


class _RNG:
    gen = np.random.default_rng(0)


_rng = _RNG()
_local = contextvars.ContextVar("runtime_generator", default=None)


def seed(n):
    """Make parameter init, ``rand*`` and dropout repeatable."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"seed expects a non-negative int, got {n!r}")
    _rng.gen = np.random.default_rng(int(n))
    if _local.get() is not None:
        _local.set(np.random.default_rng(int(n)))
    return n


def generator():
    """The generator the calling thread draws from (its own inside ``generator_guard``)."""
    gen = _local.get()
    return _rng.gen if gen is None else gen


@contextlib.contextmanager
def generator_guard(state=None):
    """Draw from a private generator in this thread for the ``with`` body.

    ``state``: a ``bit_generator.state`` to start from (replaying recorded draws: the shared
    stream is left untouched), else a generator seeded by one draw from the shared one.
    """
    if state is None:
        gen = np.random.default_rng(int(_rng.gen.integers(2 ** 63)))
    else:
        gen = np.random.Generator(type(_rng.gen.bit_generator)())
        gen.bit_generator.state = state
    token = _local.set(gen)
    try:
        yield gen
    finally:
        _local.reset(token)
