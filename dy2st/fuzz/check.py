"""Running one random program every way it can run, and comparing.

``check(src, meta, seed, folder, options)`` loads the generated module from a file (conversion
needs real source), then for each ``flag`` value compares, in order, each a *stage* of the result:

- ``forward``: the converted function (or Layer) against eager execution of the same code, on two
  inputs (one through the forward+backward plan, one through the inference plan); each signature
  builds one Program, a tensor-dependent construct that is always traced leaves a ``cond``/``while``
  op in the traced Program (looked at before dead-code removal, which rightly drops a branch that
  only computes unused values), and what ``forward`` writes into the Layer (attributes, buffers,
  batch-norm statistics) ends equal too;
- ``grad``: ``x.grad`` (and the Layer's parameter gradients) of the static run against eager;
- ``fd``: on every ``fd_every``-th function program, the static gradient against central finite
  differences of the eager function in float64 along two random directions (``x`` has 12-20
  coordinates; two directional derivatives catch a wrong gradient as surely, at a tenth of the cost);
- ``save``: on every ``save_every``-th program, ``dy2st.save`` (with ``None`` dims) + ``dy2st.load``
  against eager, at two batch sizes;
- ``onnx``: on every ``onnx_every``-th program (onnxruntime installed), the exported saved model.

The ``save`` and ``onnx`` stages are in ``dy2st.fuzz.export``, what the stages share (inputs,
comparison) in ``dy2st.fuzz.compare``.

Returns None when everything agrees, else ``Failure(stage, kind, message)``; ``kind`` (the
exception type or ``mismatch``) is what the shrinker keeps constant while it cuts the program.
"""
import collections
import contextlib
import importlib.util
import itertools
import os
import sys

import numpy as np

import dy2st
import runtime as rt
from runtime.static import passes

from .compare import _Mismatch, _arrays, _close, _inputs, _loss, _set_mode
from .export import _onnx, _save, preload  # noqa: F401  (preload: for the command line)

Failure = collections.namedtuple("Failure", ["stage", "kind", "message"])
_ids = itertools.count()
STAGES = ("forward", "grad", "fd", "save", "onnx")


class Options:
    """What to compare besides forward values and gradients, and how often (1: every program)."""

    def __init__(self, inputs=2, fd_every=1, save_every=1, onnx_every=1, train_mode=False, none_grads=False):
        self.inputs, self.fd_every, self.save_every, self.onnx_every = inputs, fd_every, save_every, onnx_every
        self.train_mode, self.none_grads = train_mode, none_grads


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


@contextlib.contextmanager
def _recording_traces():
    """[set of op types] of every Program traced inside, taken before the pass pipeline (whose
    dead-code removal drops a `cond` that only computes unused values)."""
    traced, run = [], passes.run_pipeline

    def recording(program, fetch_names, *args, **kwargs):
        traced.append({op.type for block in program.blocks for op in block.ops})
        return run(program, fetch_names, *args, **kwargs)
    passes.run_pipeline = recording
    try:
        yield traced
    finally:
        passes.run_pipeline = run


def _state_value(v):
    if isinstance(v, rt.Tensor):
        return np.array(v.numpy())
    return v


class _Target:
    """The eager and static callables of a generated module (function or Layer form), and the
    Layer state a call may change (restored between the eager and the static call)."""

    def __init__(self, mod, meta, seed):
        self.layer = None
        self.attrs = tuple(meta.get("attrs", ()))
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

    def written(self):
        """The tensors a call may write: buffers, and parameters that take no gradient (BatchNorm's
        running statistics)."""
        return [p for p in self.layer.parameters() if p.stop_gradient] + self.layer.buffers()

    def snapshot(self):
        """What a call may change: buffer values and the generated program's plain attributes."""
        if self.layer is None:
            return None
        tables = [(sub, dict(sub.named_buffers(include_sublayers=False)))
                  for sub in self.layer.sublayers(include_self=True)]
        bufs = [(b, np.array(b.numpy())) for b in self.written()]
        return tables, bufs, {a: getattr(self.layer, a) for a in self.attrs}

    def restore(self, snap):
        """Put back a ``snapshot`` (the same objects, with their values)."""
        if snap is not None:
            tables, bufs, attrs = snap
            for sub, table in tables:  # eager `self.steps = self.steps + 1` rebinds the buffer
                for name, b in table.items():
                    setattr(sub, name, b)
            for b, value in bufs:
                b.set_value(value)
            for a, v in attrs.items():
                setattr(self.layer, a, v)

    def state(self):
        """The comparable state after a call: buffer values and attribute values."""
        if self.layer is None:
            return []
        return [np.array(b.numpy()) for b in self.written()] + \
               [_state_value(getattr(self.layer, a)) for a in self.attrs]


def check(src, meta, seed, folder, options):
    """None when every stage agrees with eager execution, else a ``Failure``."""
    stage = "load"
    try:
        mod, path = load_module(src, folder)
        try:
            stage = "forward"
            with _recording_traces() as traced:
                target = _Target(mod, meta, seed)
                _forward_and_grad(target, meta, seed, options, traced)
            for stage in ("fd", "save", "onnx"):
                _STAGES[stage](target, mod, meta, seed, folder, options)
        finally:
            os.unlink(path)
    except _Mismatch as e:
        return Failure(e.stage, "mismatch", str(e))
    except Exception as e:  # noqa: BLE001
        stage = getattr(e, "_fuzz_stage", stage)
        msg = str(e).splitlines()[0] if str(e) else ""
        return Failure(stage, type(e).__name__, f"{type(e).__name__}: {msg}"[:600])
    return None


def _modes(target, options):
    if target.layer is None:
        return [None]
    return ["eval", "train"] if options.train_mode else ["eval"]


def _run(target, fn, xv, n, flag, seed, with_grad, none_grads, inference=False):
    """(output arrays, state after, gradients or None): one call, and its backward if asked;
    ``inference``: under ``rt.no_grad()`` (the inference plan, no gradient for parameters either)."""
    x = rt.to_tensor(xv, stop_gradient=not with_grad)
    for p in target.params():
        p.clear_gradient()
    rt.seed(seed)
    with rt.no_grad() if inference else contextlib.nullcontext():
        out = fn(x, n, flag)
    values, state = _arrays(out), target.state()
    if not with_grad:
        return values, state, None
    loss = _loss(out)
    if loss.stop_gradient:  # no gradient flows (a no_grad region, detached values)
        return values, state, "no gradient"
    try:
        loss.backward()
    except Exception as e:  # noqa: BLE001
        e._fuzz_stage = "grad"
        raise
    found = [(x.grad, xv.shape)] + [(p.grad, p.shape) for p in target.params()]
    # no gradient (None) counts as zeros unless none_grads: parameters of an untaken branch get
    # zeros from a static run today, None eagerly (that is a gradient-semantics question)
    grads = [(None if none_grads else np.zeros(s, "float32")) if g is None else g.numpy() for g, s in found]
    return values, state, grads


def _forward_and_grad(target, meta, seed, options, traced):
    """Values, Layer state and (on the first input of each flag) gradients, static against eager."""
    cases = _inputs(seed, options.inputs, batch=3 + 2 * (seed % 2))
    signatures = set()
    for mode in _modes(target, options):
        _set_mode(target, mode)
        for flag in (True, False):
            before = len(traced)
            for k, (xv, nv) in enumerate(cases):
                n = rt.to_tensor(nv, dtype="int64")
                # the first input through the training plan (and its backward, in eval mode), the
                # others through the inference plan
                with_grad, inference = k == 0 and mode != "train", k > 0
                snap = target.snapshot()
                want, want_state, want_grads = _run(target, target.eager, xv, n, flag, seed + k, with_grad,
                                                    options.none_grads, inference)
                target.restore(snap)
                got, got_state, got_grads = _run(target, target.static, xv, n, flag, seed + k, with_grad,
                                                 options.none_grads, inference)
                what = f"mode={mode} flag={flag} n={nv} x{list(xv.shape)}"
                _close(got, want, f"forward {what}", "forward")
                _close(got_state, want_state, f"layer state after forward {what}", "forward")
                # code naming `stop_gradient` keys its Programs on the arguments' flags too (as
                # Paddle's InputSpec does): the first input needs a gradient, the others not
                signatures.add((mode, flag, xv.shape) + ((with_grad,) if meta.get("flag_key") else ()))
                if with_grad:
                    _compare_grads(got_grads, want_grads, f"gradient {what}", options.none_grads)
            new = traced[before:]
            if meta["tensor_cf"] and new and not any(ops & {"cond", "while"} for ops in new):
                raise _Mismatch("forward", f"flag={flag}: no cond/while op although a tensor condition is "
                                           "always traced")
    # (keyed on the flags only when the traced code names `stop_gradient`: not where it sits after a
    # return or under a Python condition the trace did not take)
    if len(target.static.program_cache) not in {len(signatures), len({s[:3] for s in signatures})}:
        raise _Mismatch("forward", f"{len(target.static.program_cache)} Programs for {len(signatures)} "
                                   "signatures (retraced)")


def _compare_grads(got, want, what, none_grads):
    """Gradients equal; a result that needs no gradient on one side (``no_grad`` on the branch a
    tensor condition took: a static result has one ``stop_gradient`` for both branches) equals all
    zeros on the other, unless ``none_grads``."""
    if isinstance(got, str) and isinstance(want, str):
        return
    if isinstance(got, str) or isinstance(want, str):
        other = want if isinstance(got, str) else got
        if none_grads or any(g is not None and np.any(g) for g in other):
            raise _Mismatch("grad", f"{what}: the result needs no gradient {'statically' if isinstance(got, str) else 'eagerly'}"
                                    f" but does on the other side, with gradients {[None if g is None else np.round(g, 4).tolist() for g in other]}"[:600])
        return
    _close(got, want, what, "grad")


def _fd(target, mod, meta, seed, folder, options):
    """Directional finite differences (two random unit directions) of the eager float64 function
    against the static gradient."""
    # a no_grad region cuts a derivative that finite differences still see
    if meta["layer"] or meta.get("no_grad") or not options.fd_every or seed % options.fd_every:
        return
    xv, nv = _inputs(seed, 1, batch=3 + 2 * (seed % 2))[0]
    n = rt.to_tensor(nv, dtype="int64")
    x = rt.to_tensor(xv, stop_gradient=False)
    loss = _loss(target.static(x, n, True))
    if loss.stop_gradient:
        return
    loss.backward()
    grad = np.zeros(xv.shape, "float64") if x.grad is None else x.grad.numpy().astype("float64")
    x64, eps = xv.astype("float64"), 1e-6
    rng = np.random.default_rng(seed + 7)
    for d in range(2):
        v = rng.standard_normal(xv.shape)
        v /= np.linalg.norm(v)
        f_hi = float(_loss(mod.main(rt.to_tensor(x64 + eps * v, dtype="float64"), n, True)).numpy())
        f_lo = float(_loss(mod.main(rt.to_tensor(x64 - eps * v, dtype="float64"), n, True)).numpy())
        fd, got = (f_hi - f_lo) / (2 * eps), float((grad * v).sum())
        scale = max(1.0, float(np.linalg.norm(grad)))
        if abs(fd - got) > 2e-3 * scale:
            raise _Mismatch("fd", f"finite differences n={nv} direction {d}: static gradient gives {got:.6f}, "
                                  f"eager float64 differences {fd:.6f}")


_STAGES = {"fd": _fd, "save": _save, "onnx": _onnx}
