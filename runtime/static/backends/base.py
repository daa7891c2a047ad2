"""What every backend shares: the names, the "cannot lower" error and the weights epoch.

A backend that copies parameter values (onnxruntime keeps them as initializers)
must notice when they change.  A parameter whose ``_value`` is replaced is seen
by identity; a parameter updated in place (the optimizers do that) is announced
through ``weights_changed()``, which bumps a process-wide epoch.
"""

BACKENDS = ("numpy", "onnxruntime")

# One-element list: read as ``_EPOCH[0]`` on every call of a copying runner.
_EPOCH = [0]


class NotLowerable(Exception):
    """A backend cannot run this Program; the message names the op or value that could not be lowered."""


def check_backend(name):
    """``name`` when it is a known backend; ValueError naming the choices otherwise."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}: expected one of {', '.join(repr(b) for b in BACKENDS)}")
    return name


def weights_changed():
    """Announce an in-place write to parameter values (copies held by backends are now stale)."""
    _EPOCH[0] += 1


def weights_epoch():
    """The current weights epoch (changes after every ``weights_changed()``)."""
    return _EPOCH[0]
