"""The onnxruntime backend: a Program's inference run as an ``onnxruntime.InferenceSession``.

The global block is lowered through the ONNX exporter (``onnx.export.build_model``:
``cond`` -> ``If``, ``while`` -> ``Loop``, parameters -> initializers) and loaded
once into a session; each call is one ``run`` of it, through the session's C
entry point with one ``RunOptions`` made for the runner (``ort_run_options``), so the
per-call cost stays below that of a bare ``InferenceSession.run``.

Refused with ``NotLowerable`` (the caller falls back to the numpy executor):
ops with an ONNX mapping missing or only for eval mode (dropout/batch-norm in
training), random ops (onnxruntime's generator is not ``rt.seed``'s), ``print``/
``assert`` (side effects), writes to persistable state, and whatever
onnxruntime itself rejects when building the session.

Parameters are copied into the session, so a call first checks they are the
ones it was built with: a replaced ``_value`` (identity) or, after a
``weights_changed()`` announcement, different contents rebuild the session.
"""
from operator import attrgetter

import numpy as np

try:
    import onnxruntime as ort
except ImportError as _e:
    raise ImportError("backend='onnxruntime' needs the onnxruntime package: pip install onnxruntime "
                      f"(or pip install 'dy2st[onnx]', which also installs onnx) ({_e})") from None

from ...registry import get_op
from ..passes.features import enabled
from .base import NotLowerable, _EPOCH

# SessionOptions fields for new sessions (``runtime.static.backends.onnxruntime_options``).
SESSION_OPTIONS = {"intra_op_num_threads": None, "inter_op_num_threads": None}

_VALUE = attrgetter("_value")
_SIDE_EFFECTS = {"print": "print (a side effect onnxruntime cannot perform)",
                 "assert": "assert (a run-time check onnxruntime cannot raise)",
                 "python_int_check": "a Python int overflow check (a run-time check onnxruntime cannot raise)"}


def _walk_ops(program):
    for block in program.blocks:
        yield from block.ops


def check_lowerable(program):
    """Raise NotLowerable for what the exporter would lower with a different meaning."""
    bound = program.bound_tensors
    for op in _walk_ops(program):
        where = f"(block {op.block.idx}, output {', '.join(op.output_arg_names) or 'none'})"
        if op.type in _SIDE_EFFECTS:
            raise NotLowerable(f"op '{op.type}' {where}: {_SIDE_EFFECTS[op.type]}")
        if not get_op(op.type).pure and op.type != "dropout":  # eval-mode dropout lowers exactly
            raise NotLowerable(f"op '{op.type}' {where} draws random numbers (onnxruntime's generator "
                               "would not follow rt.seed)")
        for n in op.output_arg_names:
            v = op.block._find_var(n)
            if n in bound or (v is not None and v.persistable):
                raise NotLowerable(f"op '{op.type}' {where} writes persistable state '{n}'")


def _run_options():
    """One ``RunOptions`` for every call of a runner, or None (feature off, or an onnxruntime without it).

    The C entry point given None makes a default RunOptions on each call; handing it one costs
    ~0.6 µs less per call (8x64 MLP: 7.2 vs 7.9 µs).  Sharing it is safe, threads too: a run
    only reads it (``Run`` takes it const), and nothing here changes it after it is made."""
    make = getattr(ort, "RunOptions", None)
    if make is None or not enabled("ort_run_options"):
        return None
    try:
        return make()
    except Exception:  # noqa: BLE001  (a build whose RunOptions cannot be made: the default per call)
        return None


def _session_options():
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    for key, value in SESSION_OPTIONS.items():
        if value is not None:
            setattr(opts, key, int(value))
    return opts


class OrtRunner:
    """``run(*arrays)`` -> list of arrays, on an InferenceSession of ``program`` (rebuilt when weights change)."""

    backend = "onnxruntime"

    def __init__(self, program, feed_names, fetch_names):
        # Imported here, not at the top: the exporter needs ``onnx``, whose absence
        # must not break ``import runtime`` (this module is only imported on use).
        from ..onnx import export as onnx_export  # noqa: PLC0415
        self._export = onnx_export
        self.program = program
        self.feed_names = list(feed_names)
        self.fetch_names = list(fetch_names)
        if not self.fetch_names:
            raise NotLowerable("the Program returns no tensors")
        check_lowerable(program)
        self._build()

    def _build(self):
        program = self.program
        tensors = list(program.bound_tensors.values())
        values = [t._value for t in tensors]
        try:
            model = self._export.build_model(program, self.feed_names, self.fetch_names)
        except (NotImplementedError, ValueError, TypeError) as e:
            raise NotLowerable(str(e).splitlines()[0]) from None
        try:
            sess = ort.InferenceSession(model.SerializeToString(), _session_options(),
                                        providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001  (onnxruntime raises its own Fail/InvalidGraph types)
            raise NotLowerable(f"onnxruntime rejected the lowered model: {str(e).splitlines()[0]}") from None
        self.session = sess
        self._run = sess._sess.run  # the C entry point: InferenceSession.run only adds Python-side checks
        self._run_opts = _run_options()
        self._out_names = [o.name for o in sess.get_outputs()]
        self._tensors = tensors
        self._ids = tuple(map(id, values))
        self._values = values                       # keeps the ids above from being reused
        self._copies = [v.copy() for v in values]   # what the session holds, to compare after an announcement
        self._epoch = _EPOCH[0]
        self.run = self._make_run()

    def _weights_current(self):
        if tuple(map(id, map(_VALUE, self._tensors))) != self._ids:
            return False
        if self._epoch != _EPOCH[0]:
            # Something was updated in place somewhere; compare contents once per announcement.
            if not all(np.array_equal(a, c) for a, c in zip(self._values, self._copies)):
                return False
            self._epoch = _EPOCH[0]
            self.run = self._make_run()
        return True

    def __call__(self, *arrays):
        """Run the session on ``arrays`` (one per feed name); ``run`` is the same without this frame."""
        return self.run(*arrays)

    def _make_run(self):
        """The per-call function: the weights checks as straight-line ``is`` tests, then the session's
        C entry point with a feed dict written out for the feed names (no per-call dict building)."""
        names = {"RAW": self._run, "OUT": self._out_names, "RO": self._run_opts, "EPOCH": _EPOCH,
                 "SEEN": self._epoch, "SLOW": self._rebuild_and_run}
        args = [f"a{i}" for i in range(len(self.feed_names))]
        tests = ["EPOCH[0] != SEEN"]
        for i, (t, v) in enumerate(zip(self._tensors, self._values)):
            names[f"T{i}"], names[f"V{i}"] = t, v
            tests.append(f"T{i}._value is not V{i}")
        feed = "{" + ", ".join(f"{n!r}: {a}" for n, a in zip(self.feed_names, args)) + "}"
        params = ", ".join(args)
        source = (f"def run({params}):\n"
                  f"    if {' or '.join(tests)}:\n"
                  f"        return SLOW({params}{',' if len(args) == 1 else ''})\n"
                  f"    return RAW(OUT, {feed}, RO)\n")
        exec(compile(source, "<onnxruntime run>", "exec"), names)  # noqa: S102  (our own generated code)
        return names.pop("run")  # popped: a function held by its own globals is a reference cycle

    def _rebuild_and_run(self, *arrays):
        if not self._weights_current():
            self._build()
        return self.run(*arrays)
