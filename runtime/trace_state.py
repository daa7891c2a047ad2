"""What the calling thread is doing: building Programs (static mode) or running eagerly, and
where the ops it appends come from.

Both are ``contextvars``: each thread starts eager with no origin provider, so one thread
tracing a function never turns another thread's eager code into Program building.
"""
import contextlib
import contextvars


def context_setting(var, convert=None):
    """A property over the ContextVar ``var``: each thread (and asyncio task) reads and writes its own value."""
    def get(self):
        return var.get()

    def set_(self, value):
        var.set(value if convert is None else convert(value))
    return property(get, set_)


@contextlib.contextmanager
def holding(setting, attr, value):
    """``setting.attr = value`` for a ``with`` body, the old value back after it."""
    old = getattr(setting, attr)
    setattr(setting, attr, value)
    try:
        yield
    finally:
        setattr(setting, attr, old)


# Whether the calling thread builds Programs; ``STATIC_MODE.get()`` is ``not in_dynamic_mode()``
# without the two Python calls (for generated per-call code).
STATIC_MODE = contextvars.ContextVar("runtime_static_mode", default=False)


class _Mode:
    """``_mode.static``: whether the calling thread builds Programs."""

    static = context_setting(STATIC_MODE, bool)


_mode = _Mode()


def in_dynamic_mode():
    """True when the calling thread runs ops eagerly (the default)."""
    return not _mode.static


def enable_static():
    """Ops called from this thread append to the default main Program from now on."""
    _mode.static = True


def disable_static():
    """Ops called from this thread run eagerly again."""
    _mode.static = False


def static_mode_guard(on=True):
    """Switch the mode for a ``with`` body (used while tracing a function)."""
    return holding(_mode, "static", on)


class _Origin:
    # A builder that knows where ops come from (the converter maps generated
    # code back to the user's file and line) installs a provider returning an
    # origin object for the op being appended; runtime never imports it.
    provider = context_setting(contextvars.ContextVar("runtime_origin_provider", default=None))


_origin = _Origin()


def origin_provider(fn):
    """Record ``fn()`` as ``op.origin`` of every op appended in the ``with`` body."""
    return holding(_origin, "provider", fn)


# Which sub-blocks (by index) a run executed: a training step asks, so that a parameter
# read only in branches or loop bodies that did not run gets no gradient (None, as eagerly).
_ran_blocks = contextvars.ContextVar("runtime_ran_blocks", default=None)


def run_recording_blocks(fn, *args):
    """``(fn(*args), ran)``: ``ran`` holds the index of every ``cond`` branch and ``while`` body
    that ran (at least once) in the calling thread during the call (a plain call: this runs on
    every training step)."""
    ran = set()
    token = _ran_blocks.set(ran)
    try:
        return fn(*args), ran
    finally:
        _ran_blocks.reset(token)


def note_ran(block_idx):
    """Called by the ``cond``/``while`` kernels: the sub-block ``block_idx`` runs now."""
    ran = _ran_blocks.get()
    if ran is not None:
        ran.add(block_idx)
