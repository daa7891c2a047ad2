"""Training-step helpers shared by the tests that compare a converted model's training with eager's.

``MLP`` is the small classifier they train, ``batches`` the fixed data, ``make_optimizer`` the
optimizer configurations, ``step_trajectory`` runs the ordinary loop and records every step, and
``assert_same_steps`` compares two recordings bit for bit; ``train_step`` is the ordinary
loop body as one function, converted or not.
"""
import numpy as np

import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.optimizer import lr as lr_sched

OPTIMIZERS = ("sgd", "momentum", "adam", "adamw", "scheduled")


class MLP(nn.Layer):
    """``n_in -> hidden -> n_out`` with a relu (6 -> 16 -> 4 by default): the model training comparisons use."""

    def __init__(self, n_in=6, hidden=16, n_out=4):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def batches(n=4, sign=None):
    """``n`` batches of 8 samples (6 features, 4 classes) from a fixed seed; ``sign[i]`` forces batch
    ``i`` all positive (True) or all negative (False)."""
    rng = np.random.RandomState(0)
    for i in range(n):
        x = rng.randn(8, 6).astype("float32")
        if sign is not None:
            x = np.abs(x) * (1 if sign[i] else -1)
        yield rt.to_tensor(x), rt.to_tensor(rng.randint(0, 4, size=(8,)))


def make_optimizer(kind, params, decay=False, clip=False):
    """``(optimizer, scheduler or None)``: ``kind`` one of OPTIMIZERS, with weight decay and global-norm
    gradient clipping when asked ("scheduled" is Momentum under a StepDecay, without decay)."""
    clip = rt.optimizer.ClipGradByGlobalNorm(0.05) if clip else None
    if kind == "sgd":
        return rt.optimizer.SGD(0.1, parameters=params, weight_decay=0.01 if decay else None, grad_clip=clip), None
    if kind == "momentum":
        return rt.optimizer.Momentum(0.1, momentum=0.9, parameters=params, weight_decay=0.01 if decay else None,
                                     grad_clip=clip), None
    if kind == "adam":
        return rt.optimizer.Adam(0.01, parameters=params, weight_decay=0.01 if decay else None, grad_clip=clip), None
    if kind == "adamw":
        return rt.optimizer.AdamW(0.01, parameters=params, weight_decay=0.05 if decay else 0.0, grad_clip=clip), None
    sched = lr_sched.StepDecay(0.1, step_size=2, gamma=0.5)
    return rt.optimizer.Momentum(sched, momentum=0.5, parameters=params, grad_clip=clip), sched


def squared_sum(out, _=None):
    """A label-free loss for ``train_step``: ``(out ** 2).sum()``."""
    return (out ** 2).sum()


def train_step(model, opt, convert=False, loss_fn=F.cross_entropy):
    """``step(x, y)``: ``loss_fn(model(x), y)``, backward, ``opt.step()``, ``opt.clear_grad()``,
    returning the loss; under ``dy2st.to_static`` (one Program) when ``convert``.  ``y`` may be
    left out for a loss that takes none (``squared_sum``)."""
    def step(x, y=None):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    if convert:
        import dy2st  # noqa: PLC0415  (the runtime-only tests import these helpers too)
        return dy2st.to_static(step)
    return step


def step_trajectory(model, opt, data, loss_fn=F.cross_entropy, sched=None, set_to_zero=True):
    """Run ``loss_fn(model(x), y).backward(); opt.step(); opt.clear_grad()`` over ``data``; one
    ``(loss, gradients before the step, parameters after it)`` per step, as numpy copies.

    With ``set_to_zero`` every gradient is checked to be cleared after each step."""
    seen = []
    for x, y in data:
        loss = loss_fn(model(x), y)
        loss.backward()
        grads = [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
        opt.step()
        opt.clear_grad(set_to_zero=set_to_zero)
        if set_to_zero:
            assert all(p.grad is None or not np.any(p.grad.numpy()) for p in model.parameters())
        if sched is not None:
            sched.step()
        seen.append((loss.numpy().copy(), grads, [p.numpy().copy() for p in model.parameters()]))
    return seen


def assert_same_steps(want, got, rtol=0.0, atol=0.0):
    """Two ``step_trajectory`` recordings equal step by step (bitwise unless tolerances are given)."""
    assert len(want) == len(got)
    for step, (a, b) in enumerate(zip(want, got)):
        np.testing.assert_allclose(b[0], a[0], rtol=rtol, atol=atol, err_msg=f"loss at step {step}")
        for ga, gb in zip(a[1], b[1]):
            assert (ga is None) == (gb is None), f"gradient presence at step {step}"
            if ga is not None:
                np.testing.assert_allclose(gb, ga, rtol=rtol, atol=atol, err_msg=f"gradient at step {step}")
        for pa, pb in zip(a[2], b[2]):
            np.testing.assert_allclose(pb, pa, rtol=rtol, atol=atol, err_msg=f"parameters after step {step}")
