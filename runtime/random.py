"""The random generator behind parameter init, ``rand*`` and dropout, one stream per seeding thread.

``seed(n)`` starts a new stream for the calling thread and makes it the process stream, so a
model built and trained after ``rt.seed(n)`` is repeatable (eager and static runs draw from
the same stream).  Threads:

- a thread that called ``seed`` draws from its own stream: two threads that each seed and then
  run dropout at once get, each, the sequence they would get alone;
- a thread that never called ``seed`` draws from the process stream (the latest ``seed``'s),
  shared with the other such threads.  numpy Generators lock around each draw, so concurrent
  draws never corrupt the stream: every draw is one of the stream's, but which thread gets
  which depends on scheduling (as with Paddle's and PyTorch's global generator);
- ``generator_guard`` gives a thread a private generator for a ``with`` body, which is how a
  ``cond`` gradient replays the random draws of its forward branch without moving any stream.
"""
import contextlib
import contextvars
import threading

import numpy as np

from .trace_state import converting


class _RNG:
    gen = np.random.default_rng(0)


_rng = _RNG()  # the process stream
_seeded = threading.local()  # .gen: the stream of a thread that called seed()
_local = contextvars.ContextVar("runtime_generator", default=None)


def seed(seed):
    """Make parameter init, ``rand*`` and dropout repeatable (in the calling thread; see above).

    While a converter traces a function into a Program (static mode with an origin provider) this
    appends a ``seed`` op instead, so the stream restarts at every run, before the draws after it,
    as eager calls restart it. Hand-built static code (``enable_static()``) seeds at once, as
    parameter initialisation there needs."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed expects a non-negative int, got {seed!r}")
    if converting():
        from .dispatch import apply  # noqa: PLC0415  (dispatch imports the op modules, which import this one)
        apply("seed", value=int(seed))
        return seed
    return reseed(seed)


def reseed(n):
    """``seed(n)`` now (the ``seed`` op's kernel)."""
    gen = np.random.default_rng(int(n))
    _rng.gen = _seeded.gen = gen
    if _local.get() is not None:
        _local.set(np.random.default_rng(int(n)))
    return n


def generator():
    """The generator the calling thread draws from (its own inside ``generator_guard``)."""
    gen = _local.get()
    if gen is not None:
        return gen
    return getattr(_seeded, "gen", None) or _rng.gen


@contextlib.contextmanager
def generator_guard(state=None):
    """Draw from a private generator in this thread for the ``with`` body.

    ``state``: a ``bit_generator.state`` to start from (replaying recorded draws: no stream
    moves), else a generator seeded by one draw from the thread's stream.
    """
    if state is None:
        gen = np.random.default_rng(int(generator().integers(2 ** 63)))
    else:
        gen = np.random.Generator(type(_rng.gen.bit_generator)())
        gen.bit_generator.state = state
    token = _local.set(gen)
    try:
        yield gen
    finally:
        _local.reset(token)


def _manual_program_seed(seed):
    """Paddle's ``paddle.framework.random._manual_program_seed``, which training scripts call beside
    ``paddle.seed``: it records ``seed`` as the default Programs' ``random_seed`` and, as in Paddle,
    does not touch the generator eager ops and converted functions draw from (``paddle.seed`` does)."""
    from . import framework  # noqa: PLC0415  (framework imports this module)
    framework.default_main_program().random_seed = seed
    framework.default_startup_program().random_seed = seed
