"""``rt.utils.unique_name`` (Paddle's ``paddle.utils.unique_name``): the counters that name layers and
their parameters (``linear_0.w_0``), which optimizer state and saved Programs are keyed by.

``guard()`` runs a block with fresh counters and gives the old ones back after it, so a model built
twice in one process (a resumed run rebuilt next to the first) gets the same parameter names both
times and the saved optimizer state loads into the second, as it does in a fresh process.
"""
import contextlib

__all__ = ["generate", "guard", "switch"]


def _counts():
    from .nn import layer  # noqa: PLC0415  (runtime.nn imports the package this module is part of)
    return layer._name_counts


def generate(key):
    """The next unique name for ``key`` (``generate('fc')`` -> ``'fc_0'``, then ``'fc_1'``...)."""
    from .nn.layer import _unique_layer_name  # noqa: PLC0415
    return _unique_layer_name(str(key))


def switch(new_generator=None):
    """Replace the counters with fresh ones (``new_generator=None``); returns the old ones, which
    ``switch(old)`` puts back."""
    counts = _counts()
    old = dict(counts)
    if new_generator is not None and not isinstance(new_generator, dict):
        raise NotImplementedError("unique_name.switch/guard take no generator or prefix here: call them "
                                  "without arguments (fresh counters)")
    counts.clear()
    counts.update(new_generator or {})
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Within the block layers are named from fresh counters; the previous counters return after it."""
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
