"""The grad mode: whether ops record on the autograd tape, per thread, and its switches.

``no_grad`` / ``enable_grad`` (context managers and decorators) set a ContextVar that every op
and ``GRAD_ENABLED.get()`` in generated per-call code read. Kept apart from ``tensor.py`` (which
re-exports these names): it needs nothing of the tensor classes, so ``tape.py`` and the tensor
module both import it without a cycle.
"""
import contextlib
import contextvars

from .trace_state import context_setting


class _GradMode:
    """``_grad_mode.enabled`` of the calling thread (a ContextVar: ``no_grad`` in one thread never
    switches autograd off in another)."""

    _enabled = contextvars.ContextVar("runtime_grad_enabled", default=True)
    enabled = context_setting(_enabled)


_grad_mode = _GradMode()
# ``GRAD_ENABLED.get()`` is ``is_grad_enabled()`` without the two Python calls (for generated per-call code).
GRAD_ENABLED = _GradMode._enabled


class _GradSwitch(contextlib.ContextDecorator):
    _on = True

    def __enter__(self):
        # a stack, not one saved value: the same instance (a decorator) may be entered by several
        # threads or recursively at once
        self.__dict__.setdefault("_tokens", []).append(_GradMode._enabled.set(self._on))
        return self

    def __exit__(self, *exc):
        _GradMode._enabled.reset(self._tokens.pop())
        return False

    def _recreate_cm(self):
        return type(self)()  # each decorated call gets its own context manager


class no_grad(_GradSwitch):
    """Context manager and decorator that stops the tape from recording."""

    _on = False


class enable_grad(_GradSwitch):
    """Context manager and decorator that records on the tape again (inside ``no_grad``)."""

    _on = True


def is_grad_enabled():
    """False inside ``rt.no_grad()``."""
    return _grad_mode.enabled
