"""Running one random program every way it can run, and comparing.

``check(src, meta, seed, options)`` loads the generated module from a file (conversion needs
real source), then for each ``flag`` value and a few inputs (batch sizes vary: dynamic dims)
compares, in order, each a *stage* of the result:

- ``forward``: the converted function (or Layer) against eager execution of the same code; each
  signature builds one Program, and a tensor-dependent construct becomes a ``cond``/``while`` op;
- ``grad``: ``x.grad`` (and the Layer's parameter gradients) of the static run against eager;
- ``fd``: on every ``fd_every``-th program, the static gradient against central finite
  differences of the eager function in float64 (function programs);
- ``save``: on every ``save_every``-th program, ``dy2st.save`` + ``dy2st.load`` against eager;
- ``onnx``: on every ``onnx_every``-th program (onnxruntime installed), the exported model.

Returns None when everything agrees, else ``Failure(stage, kind, message)``; ``kind`` (the
exception type or ``mismatch``) is what the shrinker keeps constant while it cuts the program.
"""
import collections
import importlib.util
import itertools
import os
import sys
import warnings

import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec

Failure = collections.namedtuple("Failure", ["stage", "kind", "message"])
_ids = itertools.count()


class Options:
    """What to compare besides forward values and gradients, and how often."""

    def __init__(self, inputs=2, fd_every=8, save_every=4, onnx_every=8, train_mode=False, none_grads=False):
        self.inputs, self.fd_every, self.save_every, self.onnx_every = inputs, fd_every, save_every, onnx_every
        self.train_mode, self.none_grads = train_mode, none_grads


class _Mismatch(Exception):
    pass


def load_module(src, folder):
    """The generated source as an imported module (from a real file: conversion reads source)."""
    name = f"_dy2st_fuzz_{os.getpid()}_{next(_ids)}"
    path = os.path.join(folder, name + ".py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[name]  # nothing may keep the program alive after its check
    return mod, path


def _arrays(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [np.asarray(o.numpy()) for o in outs]


def _loss(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = outs[0].sum()
    for o in outs[1:]:
        total = total + o.sum()
    return total


def _close(got, want, what, rtol=1e-4, atol=1e-5):
    if len(got) != len(want):
        raise _Mismatch(f"{what}: {len(got)} outputs, eager gives {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol):
            raise _Mismatch(f"{what}: output {i} differs: static {g.shape} {np.round(g, 5).tolist()} vs "
                            f"eager {w.shape} {np.round(w, 5).tolist()}"[:600])


def _op_types(program):
    return {op.type for block in program.blocks for op in block.ops}


def _inputs(seed, count, batch=None):
    """(x, n) pairs; x's batch dim alternates 3/5 unless given (a saved model serves both)."""
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((batch or 3 + 2 * (k % 2), 4)) * (0.5 + k * 0.4)).astype("float32"),
             int(rng.integers(0, 5))) for k in range(count)]


class _Target:
    """The eager and static callables of a generated module (function or Layer form)."""

    def __init__(self, mod, meta, seed):
        self.layer = None
        if meta["layer"]:
            rt.seed(seed)
            self.layer = mod.Net()
            self.eager = self.layer.forward
            self.static = dy2st.to_static(self.layer).forward
        else:
            self.eager = mod.main
            self.static = dy2st.to_static(mod.main)

    def params(self):
        return [] if self.layer is None else [p for p in self.layer.parameters() if not p.stop_gradient]


def check(src, meta, seed, folder, options):
    """None when every stage agrees with eager execution, else a ``Failure``."""
    stage = "load"
    try:
        mod, path = load_module(src, folder)
        try:
            target = _Target(mod, meta, seed)
            for stage in ("forward", "grad", "fd", "save", "onnx"):
                _STAGES[stage](target, mod, meta, seed, folder, options)
        finally:
            os.unlink(path)
    except _Mismatch as e:
        return Failure(stage, "mismatch", str(e))
    except Exception as e:  # noqa: BLE001
        msg = str(e).splitlines()[0] if str(e) else ""
        return Failure(stage, type(e).__name__, f"{type(e).__name__}: {msg}"[:600])
    return None


def _modes(target, options):
    if target.layer is None:
        return [None]
    return ["eval", "train"] if options.train_mode else ["eval"]


def _set_mode(target, mode):
    if target.layer is not None:
        target.layer.train() if mode == "train" else target.layer.eval()


def _forward(target, mod, meta, seed, folder, options):
    cases = _inputs(seed, options.inputs, batch=3 + 2 * (seed % 2))
    signatures = set()
    for mode in _modes(target, options):
        _set_mode(target, mode)
        for flag in (True, False):
            for k, (xv, nv) in enumerate(cases):
                n = rt.to_tensor(nv, dtype="int64")
                rt.seed(seed + k)
                want = _arrays(target.eager(rt.to_tensor(xv), n, flag))
                rt.seed(seed + k)
                got = _arrays(target.static(rt.to_tensor(xv), n, flag))
                _close(got, want, f"forward mode={mode} flag={flag} n={nv} x{list(xv.shape)}")
                signatures.add((mode, flag, xv.shape))
            if meta["tensor_cf"] and not _op_types(target.static.concrete_program.main_program) & {"cond", "while"}:
                raise _Mismatch(f"flag={flag}: no cond/while op although a tensor condition is always traced")
    if len(target.static.program_cache) != len(signatures):
        raise _Mismatch(f"{len(target.static.program_cache)} Programs for {len(signatures)} signatures (retraced)")


def _grad(target, mod, meta, seed, folder, options):
    xv, nv = _inputs(seed, 1, batch=3 + 2 * (seed % 2))[0]
    n = rt.to_tensor(nv, dtype="int64")
    _set_mode(target, "eval")
    for flag in (True, False):
        grads, needs = [], []
        for fn in (target.eager, target.static):
            x = rt.to_tensor(xv, stop_gradient=False)
            for p in target.params():
                p.clear_gradient()
            loss = _loss(fn(x, n, flag))
            needs.append(not loss.stop_gradient)
            if needs[0] != needs[-1]:
                raise _Mismatch(f"gradient flag={flag}: the static result's stop_gradient is {not needs[-1]}, "
                                f"eager's is {not needs[0]}")
            if not needs[-1]:
                break  # no gradient flows (a no_grad region, detached values): nothing to compare
            loss.backward()
            found = [(x.grad, xv.shape)] + [(p.grad, p.shape) for p in target.params()]
            # no gradient (None) counts as zeros unless options.none_grads: parameters of an untaken
            # branch get zeros from a static run today, None eagerly
            grads.append([(np.zeros(s, "float32") if not options.none_grads else np.zeros(1)) if g is None
                          else g.numpy() for g, s in found])
        if len(grads) == 2:
            _close(grads[1], grads[0], f"gradient flag={flag} n={nv}")


def _fd(target, mod, meta, seed, folder, options):
    if meta["layer"] or not options.fd_every or seed % options.fd_every:
        return
    xv, nv = _inputs(seed, 1, batch=3 + 2 * (seed % 2))[0]
    n = rt.to_tensor(nv, dtype="int64")
    x = rt.to_tensor(xv, stop_gradient=False)
    _loss(target.static(x, n, True)).backward()
    got = np.zeros_like(xv) if x.grad is None else x.grad.numpy()
    x64, eps = xv.astype("float64"), 1e-6
    fd = np.zeros_like(x64)
    for idx in np.ndindex(*x64.shape):
        hi, lo = x64.copy(), x64.copy()
        hi[idx] += eps
        lo[idx] -= eps
        f_hi = float(_loss(mod.main(rt.to_tensor(hi, dtype="float64"), n, True)).numpy())
        f_lo = float(_loss(mod.main(rt.to_tensor(lo, dtype="float64"), n, True)).numpy())
        fd[idx] = (f_hi - f_lo) / (2 * eps)
    _close([got], [fd], f"finite differences n={nv}", rtol=2e-3, atol=2e-3)


SPECS = [InputSpec([None, 4], "float32", "x"), InputSpec([], "int64", "n")]


def _saved_prefix(folder, seed):
    return os.path.join(folder, f"model_{os.getpid()}_{seed}")


def _save(target, mod, meta, seed, folder, options):
    if not options.save_every or seed % options.save_every:
        return
    _set_mode(target, "eval")
    prefix = _saved_prefix(folder, seed)
    dy2st.save(target.layer if target.layer is not None else target.static, prefix, input_spec=SPECS)
    loaded = dy2st.load(prefix)
    for xv, nv in _inputs(seed + 1, 2):
        n = rt.to_tensor(nv, dtype="int64")
        want = _arrays(target.eager(rt.to_tensor(xv), n, True))
        _close(_arrays(loaded(rt.to_tensor(xv), n)), want, f"saved and loaded model n={nv} x{list(xv.shape)}")


def _onnx(target, mod, meta, seed, folder, options):
    prefix = _saved_prefix(folder, seed)
    try:
        if not options.onnx_every or seed % options.onnx_every or not os.path.exists(prefix + ".pdmodel"):
            return
        try:
            import onnxruntime as ort  # optional: the check is skipped without it
        except ImportError:
            return
        _set_mode(target, "eval")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dy2st.export_onnx(prefix, prefix + ".onnx")
        session = ort.InferenceSession(prefix + ".onnx", providers=["CPUExecutionProvider"])
        for xv, nv in _inputs(seed + 2, 2):
            want = _arrays(target.eager(rt.to_tensor(xv), rt.to_tensor(nv, dtype="int64"), True))
            got = session.run(None, {"x": xv, "n": np.array(nv, dtype="int64")})
            _close([np.asarray(g) for g in got], want, f"ONNX in onnxruntime n={nv} x{list(xv.shape)}")
    finally:
        for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info", ".onnx"):
            if os.path.exists(prefix + suffix):
                os.unlink(prefix + suffix)


_STAGES = {"forward": _forward, "grad": _grad, "fd": _fd, "save": _save, "onnx": _onnx}
