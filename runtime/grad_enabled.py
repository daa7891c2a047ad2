"""``rt.set_grad_enabled(mode)`` (Paddle's): switches recording on or off when called, for the rest of
the program or, used as ``with rt.set_grad_enabled(is_train):``, until the block ends."""
from .tensor import GRAD_ENABLED

__all__ = ["set_grad_enabled"]


class set_grad_enabled:  # noqa: N801  (Paddle's name)
    """Record gradients (``mode=True``) or not from now on; as a context manager, until the block
    ends (the previous mode comes back)."""

    def __init__(self, mode):
        self.prev = GRAD_ENABLED.get()
        self.mode = bool(mode)
        GRAD_ENABLED.set(self.mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        GRAD_ENABLED.set(self.prev)
        return False

    def clone(self):
        """A new switch to the same mode (Paddle's ``clone``)."""
        return type(self)(self.mode)
