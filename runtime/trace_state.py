"""What the calling thread is doing: building Programs (static mode) or running eagerly, and
where the ops it appends come from.

Both are ``contextvars``: each thread starts eager with no origin provider, so one thread
tracing a function never turns another thread's eager code into Program building.
"""
import contextlib
import contextvars


class _Mode:
    """``_mode.static``: whether the calling thread builds Programs (reads and writes a ContextVar)."""

    _static = contextvars.ContextVar("runtime_static_mode", default=False)

    @property
    def static(self):
        return self._static.get()

    @static.setter
    def static(self, on):
        self._static.set(bool(on))


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


@contextlib.contextmanager
def static_mode_guard(on=True):
    """Switch the mode for a ``with`` body (used while tracing a function)."""
    old = _mode.static
    _mode.static = on
    try:
        yield
    finally:
        _mode.static = old


class _Origin:
    # A builder that knows where ops come from (the converter maps generated
    # code back to the user's file and line) installs a provider returning an
    # origin object for the op being appended; runtime never imports it.
    _provider = contextvars.ContextVar("runtime_origin_provider", default=None)

    @property
    def provider(self):
        return self._provider.get()

    @provider.setter
    def provider(self, fn):
        self._provider.set(fn)


_origin = _Origin()


@contextlib.contextmanager
def origin_provider(fn):
    """Record ``fn()`` as ``op.origin`` of every op appended in the ``with`` body."""
    old = _origin.provider
    _origin.provider = fn
    try:
        yield
    finally:
        _origin.provider = old


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
