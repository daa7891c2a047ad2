"""What the fuzzer's stages share: the inputs of a program, its outputs as arrays, and comparing them."""
import numpy as np


class _Mismatch(Exception):
    def __init__(self, stage, message):
        super().__init__(message)
        self.stage = stage


def _arrays(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [np.asarray(o.numpy()) for o in outs]


def _loss(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = outs[0].sum()
    for o in outs[1:]:
        total = total + o.sum()
    return total


def _close(got, want, what, stage, rtol=1e-4, atol=1e-5):
    if len(got) != len(want):
        raise _Mismatch(stage, f"{what}: {len(got)} outputs, eager gives {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            if g is not w:
                raise _Mismatch(stage, f"{what}: value {i} is {g!r} statically, {w!r} eagerly")
            continue
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype or not np.allclose(g, w, rtol=rtol, atol=atol):
            raise _Mismatch(stage, f"{what}: value {i} differs: static {g.dtype}{list(g.shape)} "
                                   f"{np.round(g, 5).tolist()} vs eager {w.dtype}{list(w.shape)} "
                                   f"{np.round(w, 5).tolist()}"[:600])


def _inputs(seed, count, batch=None):
    """(x, n) pairs; x's batch dim alternates 3/5 unless given (a saved model serves both)."""
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((batch or 3 + 2 * (k % 2), 4)) * (0.5 + k * 0.4)).astype("float32"),
             int(rng.integers(0, 5))) for k in range(count)]


def _set_mode(target, mode):
    if target.layer is not None:
        target.layer.train() if mode == "train" else target.layer.eval()
