"""Execution backends: who runs a Program's inference segment.

Two interchangeable backends make a runner: a callable ``run(*arrays)`` -> the
fetched arrays (a sequence), with a ``backend`` attribute, for a Program's global
block, fixed feed names and fetch names:

- ``"numpy"`` (the default and the reference): the executor's compiled plan
  (``runtime.static.executor.compile_block``); runs everything, trains too.
- ``"onnxruntime"``: the Program lowered through the ONNX exporter into an
  ``onnxruntime.InferenceSession`` (inference only; weights become initializers,
  so the session is rebuilt when a bound parameter changes, see ``weights_changed``).

``make_runner(name, program, feeds, fetches)`` raises ``NotLowerable`` (naming
what could not be lowered) when a backend cannot run a Program; callers fall
back to the numpy runner and say so once.
"""
from .base import BACKENDS, NotLowerable, check_backend, weights_changed, weights_epoch
from .numpy import numpy_runner


def make_runner(backend, program, feed_names, fetch_names):
    """A runner for ``program``'s global block on ``backend`` ("numpy" or "onnxruntime")."""
    name = check_backend(backend)
    if name == "numpy":
        return numpy_runner(program, feed_names, fetch_names)
    from .onnxruntime import OrtRunner  # noqa: PLC0415  (optional dependency, imported on first use)
    return OrtRunner(program, feed_names, fetch_names)


def onnxruntime_options(**options):
    """Set (and return) the ``onnxruntime.SessionOptions`` fields new sessions use.

    ``intra_op_num_threads=1`` gives the lowest per-call latency for small models;
    ``None`` restores onnxruntime's default.  Sessions already built keep theirs.
    """
    from .onnxruntime import SESSION_OPTIONS  # noqa: PLC0415
    for key, value in options.items():
        if key not in SESSION_OPTIONS:
            raise TypeError(f"onnxruntime_options() got an unexpected option {key!r}; "
                            f"known: {sorted(SESSION_OPTIONS)}")
        SESSION_OPTIONS[key] = value
    return dict(SESSION_OPTIONS)


__all__ = ["BACKENDS", "NotLowerable", "check_backend", "make_runner", "onnxruntime_options",
           "weights_changed", "weights_epoch"]
