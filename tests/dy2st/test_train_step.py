"""A training step under ``to_static`` gives eager's parameter trajectory, step by step.

The ordinary loop (``loss = F.cross_entropy(model(x), y); loss.backward();
opt.step(); opt.clear_grad()``) runs on an eager model and on the same model
converted, from the same start, for SGD, Momentum, Adam and AdamW, with and
without weight decay and gradient clipping and under an LR scheduler; every
parameter is compared after every step, then the optimizer states.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from step_helpers import MLP, OPTIMIZERS, assert_same_steps, batches, make_optimizer, step_trajectory


def _trajectory(model, kind, decay, clip, steps=5):
    opt, sched = make_optimizer(kind, model.parameters(), decay, clip)
    return step_trajectory(model, opt, batches(steps), sched=sched), opt.state_dict()


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize("decay,clip", [(False, False), (True, False), (False, True), (True, True)])
def test_static_training_matches_eager(kind, decay, clip):
    rt.seed(1)
    eager = MLP()
    static = MLP()
    static.set_state_dict(eager.state_dict())
    static = dy2st.to_static(static)
    want, want_state = _trajectory(eager, kind, decay, clip)
    got, got_state = _trajectory(static, kind, decay, clip)
    assert_same_steps(want, got, rtol=1e-6, atol=1e-7)
    rename = {p.name: q.name for p, q in zip(eager.parameters(), static.parameters())}

    def static_key(key):
        for old, new in rename.items():
            if key.startswith(old + "_"):
                return new + key[len(old):]
        return key
    assert sorted(got_state) == sorted(static_key(k) for k in want_state)
    for key, value in want_state.items():
        if isinstance(value, rt.Tensor):
            np.testing.assert_allclose(got_state[static_key(key)].numpy(), value.numpy(), rtol=1e-6, atol=1e-7)
        else:
            assert got_state[key] == value
    assert len(static.forward.program_cache) == 1


def test_input_gradient_when_asked():
    rt.seed(2)
    eager = MLP()
    static = MLP()
    static.set_state_dict(eager.state_dict())
    static = dy2st.to_static(static)
    xa = np.random.RandomState(3).randn(5, 6).astype("float32")
    y = rt.to_tensor(np.array([0, 1, 2, 3, 0]))
    grads = []
    for model in (eager, static):
        x = rt.to_tensor(xa, stop_gradient=False)
        F.cross_entropy(model(x), y).backward()
        grads.append(x.grad.numpy())
        xs = rt.to_tensor(xa)  # the same Program, now without an input gradient
        F.cross_entropy(model(xs), y).backward()
        assert xs.grad is None
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-7)


def test_cross_entropy_fast_path_matches_general_path():
    rng = np.random.RandomState(4)
    logits = rng.randn(7, 5).astype("float32")
    labels = rng.randint(0, 5, size=(7,))
    for reduction in ("mean", "sum", "none"):
        x = rt.to_tensor(logits, stop_gradient=False)
        fast = F.cross_entropy(x, rt.to_tensor(labels), reduction=reduction)
        fast.sum().backward()
        # ignore_index=3 is a valid class: the general (masked) path, with nothing ignored here
        # once label 3 is remapped away.
        lab = np.where(labels == 3, 4, labels)
        x2 = rt.to_tensor(logits, stop_gradient=False)
        F.cross_entropy(x2, rt.to_tensor(lab), reduction=reduction, ignore_index=3).sum().backward()
        x3 = rt.to_tensor(logits, stop_gradient=False)
        F.cross_entropy(x3, rt.to_tensor(lab), reduction=reduction).sum().backward()
        np.testing.assert_allclose(x2.grad.numpy(), x3.grad.numpy(), rtol=1e-6, atol=1e-7)
        logp = logits - logits.max(1, keepdims=True)
        logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
        per = -logp[np.arange(7), labels]
        want = {"mean": per.mean(), "sum": per.sum(), "none": per}[reduction]
        np.testing.assert_allclose(fast.numpy(), want, rtol=1e-5)
        p = np.exp(logp)
        p[np.arange(7), labels] -= 1
        scale = 1 / 7 if reduction == "mean" else 1.0
        np.testing.assert_allclose(x.grad.numpy(), p * scale, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize("decay,clip", [(False, False), (True, True)])
@pytest.mark.filterwarnings("ignore:.*had a gradient in an earlier step")  # the dropped gradient below
def test_fused_update_is_the_per_parameter_update(kind, decay, clip):
    """One update over a flat buffer equals the per-parameter loop bit for bit, across a
    set_state_dict (arrays replaced: the buffer is rebuilt) and a step where a gradient is missing."""
    rt.seed(3)
    models = [MLP(), MLP()]
    models[1].set_state_dict(models[0].state_dict())
    opts = []
    for m in models:
        opts.append(make_optimizer(kind, m.parameters(), decay, clip)[0])
    opts[1]._flat = {0: None}  # never fused: the per-parameter loop
    rng = np.random.RandomState(5)
    for step in range(6):
        x = rng.randn(8, 6).astype("float32")
        y = rng.randint(0, 4, size=(8,))
        for m, opt in zip(models, opts):
            F.cross_entropy(m(rt.to_tensor(x)), rt.to_tensor(y)).backward()
            if step == 4:
                m.fc2.bias.grad = None  # this step updates the other parameters only
            opt.step()
            opt.clear_grad()
        if step == 2:
            for m, opt in zip(models, opts):
                m.set_state_dict(m.state_dict())
                opt.set_state_dict(opt.state_dict())
        for a, b in zip(models[0].parameters(), models[1].parameters()):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert opts[0]._flat[0] is not None  # the fused path was taken
    s0, s1 = opts[0].state_dict(), opts[1].state_dict()
    rename = {q.name: p.name for p, q in zip(models[0].parameters(), models[1].parameters())}
    for key, value in s1.items():
        if isinstance(value, rt.Tensor):
            pname = next(n for n in rename if key.startswith(n + "_"))
            np.testing.assert_array_equal(s0[rename[pname] + key[len(pname):]].numpy(), value.numpy())
