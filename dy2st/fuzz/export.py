"""The fuzzer's ``save`` and ``onnx`` stages: the program saved with ``None`` dims and loaded, and
the saved model exported to ONNX and run in onnxruntime (when installed), against eager execution."""
import inspect
import os
import warnings

import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec

from .compare import _Mismatch, _arrays, _close, _inputs, _set_mode


SPECS = [InputSpec([None, 4], "float32", "x"), InputSpec([], "int64", "n")]


def _saved_prefix(folder, seed):
    return os.path.join(folder, f"model_{os.getpid()}_{seed}")


def _save(target, mod, meta, seed, folder, options):
    if not options.save_every or seed % options.save_every:
        return
    if inspect.signature(target.eager).parameters["flag"].default is inspect.Parameter.empty:
        return  # the plain grammar's main(x, n, flag): a saved model takes tensors only (SPECS)
    _set_mode(target, "eval")
    prefix = _saved_prefix(folder, seed)
    dy2st.save(target.layer if target.layer is not None else target.static, prefix, input_spec=SPECS)
    for xv, nv in _inputs(seed + 1, 2):
        # loaded afresh for each input as the eager Layer is restored after each call: a forward that
        # writes a buffer in place (`self.ema.add_(v)`) changes the loaded model's state too
        loaded = dy2st.load(prefix)
        n = rt.to_tensor(nv, dtype="int64")
        snap = target.snapshot()
        want = _arrays(target.eager(rt.to_tensor(xv), n, True))
        target.restore(snap)
        _close(_arrays(loaded(rt.to_tensor(xv), n)), want, f"saved and loaded model n={nv} x{list(xv.shape)}",
               "save")


_ORT = {}


def preload():
    """Import onnxruntime and the ONNX exporter now, when installed: a parent calling this before it
    forks its workers spares every worker (replaced every 500 programs) importing them again."""
    if "ort" not in _ORT:
        try:
            import onnxruntime  # optional: the check is skipped without it
        except ImportError:
            onnxruntime = None
        _ORT["ort"] = onnxruntime
    try:
        import runtime.static.onnx.export  # noqa: F401  (needs the onnx package)
    except ImportError:
        pass


def _ort_session(path):
    """An onnxruntime session, or None when onnxruntime is not installed; one thread and no graph
    rewrites: the fuzzer's graphs are tiny, so building the session is what costs."""
    preload()
    ort = _ORT["ort"]
    if ort is None:
        return None
    so = ort.SessionOptions()
    so.intra_op_num_threads = so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3  # no warnings about initializers an untaken branch left unused
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def _onnx(target, mod, meta, seed, folder, options):
    prefix = _saved_prefix(folder, seed)
    try:
        if not options.onnx_every or seed % options.onnx_every or not os.path.exists(prefix + ".pdmodel") \
                or not meta.get("onnx", True) or _ORT.get("ort", True) is None:
            return
        _set_mode(target, "eval")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dy2st.export_onnx(prefix, prefix + ".onnx")
        session = _ort_session(prefix + ".onnx")
        if session is None:
            return
        for xv, nv in _inputs(seed + 2, 2):
            snap = target.snapshot()
            want = _arrays(target.eager(rt.to_tensor(xv), rt.to_tensor(nv, dtype="int64"), True))
            target.restore(snap)
            got = session.run(None, {"x": xv, "n": np.array(nv, dtype="int64")})
            try:
                _close([np.asarray(g) for g in got], want, f"ONNX in onnxruntime n={nv} x{list(xv.shape)}", "onnx")
            except _Mismatch:
                if not _ill_conditioned(target, mod, xv, nv, want):
                    raise
    finally:
        for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info", ".onnx"):
            if os.path.exists(prefix + suffix):
                os.unlink(prefix + suffix)


def _ill_conditioned(target, mod, xv, nv, want):
    """Whether float32 rounding alone moves a function program's result past the tolerance (eager float32
    against float64): onnxruntime rounds otherwise (summation order, tanh), no defect in such a program."""
    if target.layer is not None:
        return False
    wide = _arrays(mod.main(rt.to_tensor(xv.astype("float64")), rt.to_tensor(nv, dtype="int64"), True))
    try:
        _close([w.astype(v.dtype) for w, v in zip(wide, want)], want, "float64", "onnx")
    except _Mismatch:
        return True
    return False
