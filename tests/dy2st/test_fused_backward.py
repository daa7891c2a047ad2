"""``loss.backward()`` from a converted function's output skips the tape walk and stays bitwise eager.

Every case runs the same model three ways from the same weights: eagerly, converted
with the loss-rooted fast path, and converted with the fast path switched off (the
general tape walk); gradients and parameter trajectories must be bitwise equal.
Graphs the fast path does not know (the output used twice, an input computed by
eager ops that need gradients) must be declined and still come out right.
"""
import contextlib

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from dy2st.execution import fused_backward
from runtime import nn
from runtime.tensor import BACKWARD_FAST_PATHS


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Gated(nn.Layer):
    """fc2 is read only in one branch: a step that takes the other gives it no gradient."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 4)
        self.fc2 = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc1(x)
        if h.sum() > 0:
            h = self.fc2(h)
        return h


@contextlib.contextmanager
def _counting():
    """Counts the backward calls the fast path handled."""
    seen = {"fast": 0}
    original = fused_backward.loss_root_backward

    def counted(root, seed):
        done = original(root, seed)
        seen["fast"] += bool(done)
        return done

    index = BACKWARD_FAST_PATHS.index(original)
    BACKWARD_FAST_PATHS[index] = counted
    try:
        yield seen
    finally:
        BACKWARD_FAST_PATHS[index] = original


@contextlib.contextmanager
def _walk_only():
    saved = list(BACKWARD_FAST_PATHS)
    BACKWARD_FAST_PATHS.clear()
    try:
        yield
    finally:
        BACKWARD_FAST_PATHS.extend(saved)


def _copies(cls, seed=3):
    rt.seed(seed)
    eager = cls()
    a, b = cls(), cls()
    a.set_state_dict(eager.state_dict())
    b.set_state_dict(eager.state_dict())
    return eager, dy2st.to_static(a), dy2st.to_static(b)


def _batches(n=4, sign=None):
    rng = np.random.RandomState(0)
    for i in range(n):
        x = rng.randn(8, 6).astype("float32")
        if sign is not None:
            x = np.abs(x) * (1 if sign[i] else -1)
        yield rt.to_tensor(x), rt.to_tensor(rng.randint(0, 4, size=(8,)))


def _optimizer(kind, params):
    clip = rt.optimizer.ClipGradByGlobalNorm(0.05)
    return {
        "sgd": lambda: rt.optimizer.SGD(0.1, parameters=params),
        "sgd_decay_clip": lambda: rt.optimizer.SGD(0.1, parameters=params, weight_decay=0.01, grad_clip=clip),
        "momentum": lambda: rt.optimizer.Momentum(0.1, momentum=0.9, parameters=params, weight_decay=0.01),
        "adam": lambda: rt.optimizer.Adam(0.01, parameters=params, grad_clip=clip),
        "adamw": lambda: rt.optimizer.AdamW(0.01, parameters=params, weight_decay=0.05),
        "scheduled": lambda: rt.optimizer.Momentum(rt.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5),
                                                   momentum=0.5, parameters=params),
    }[kind]()


def _train(model, kind, loss_fn, batches, set_to_zero=True):
    opt = _optimizer(kind, model.parameters())
    seen = []
    for x, y in batches:
        loss = loss_fn(model(x), y)
        loss.backward()
        grads = [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
        opt.step()
        opt.clear_grad(set_to_zero=set_to_zero)
        if isinstance(opt._learning_rate, rt.optimizer.lr.LRScheduler):
            opt._learning_rate.step()
        seen.append((loss.numpy().copy(), grads, [p.numpy().copy() for p in model.parameters()]))
    return seen


def _assert_same(want, got):
    for step, (a, b) in enumerate(zip(want, got)):
        np.testing.assert_array_equal(b[0], a[0], err_msg=f"loss at step {step}")
        for ga, gb in zip(a[1], b[1]):
            assert (ga is None) == (gb is None), f"gradient presence at step {step}"
            if ga is not None:
                np.testing.assert_array_equal(gb, ga, err_msg=f"gradient at step {step}")
        for pa, pb in zip(a[2], b[2]):
            np.testing.assert_array_equal(pb, pa, err_msg=f"parameters after step {step}")


def _ce(out, y):
    return F.cross_entropy(out, y)


def _mse(out, y):
    return F.mse_loss(out, F.one_hot(y, 4))


@pytest.mark.parametrize("kind", ["sgd", "sgd_decay_clip", "momentum", "adam", "adamw", "scheduled"])
def test_training_is_bitwise_eager_and_takes_the_fast_path(kind):
    eager, fast, walk = _copies(Net)
    want = _train(eager, kind, _ce, _batches())
    with _counting() as seen:
        got = _train(fast, kind, _ce, _batches())
    assert seen["fast"] == 4
    with _walk_only():
        walked = _train(walk, kind, _ce, _batches())
    _assert_same(want, got)
    _assert_same(walked, got)


def test_mse_loss_root_and_loss_inside_the_function():
    eager, fast, _ = _copies(Net)
    with _counting() as seen:
        _assert_same(_train(eager, "adam", _mse, _batches()), _train(fast, "adam", _mse, _batches()))
    assert seen["fast"] == 4

    class WithLoss(nn.Layer):
        def __init__(self):
            super().__init__()
            self.net = Net()

        def forward(self, x, y):
            return F.cross_entropy(self.net(x), y)

    rt.seed(5)
    e = WithLoss()
    s = WithLoss()
    s.set_state_dict(e.state_dict())
    s = dy2st.to_static(s)
    for model in (e, s):
        x, y = next(_batches(1))
        model(x, y).backward()
    with _counting() as seen:
        s(x, y).backward()
    assert seen["fast"] == 1
    e(x, y).backward()
    for pe, ps in zip(e.parameters(), s.parameters()):
        np.testing.assert_array_equal(ps.grad.numpy(), pe.grad.numpy())


def test_a_parameter_without_gradient_in_a_step():
    # the first two batches take the branch (fc2 used), the last two do not (fc2.grad stays None)
    eager, fast, walk = _copies(Gated, seed=7)
    signs = [True, True, False, False]
    want = _train(eager, "momentum", _ce, _batches(sign=signs))
    got = _train(fast, "momentum", _ce, _batches(sign=signs))
    assert got[-1][1][2] is None and got[0][1][2] is not None
    _assert_same(want, got)


def test_grads_accumulate_without_clear_grad_and_with_set_to_zero_false():
    eager, fast, _ = _copies(Net)
    x, y = next(_batches(1))
    for model in (eager, fast):
        for _ in range(3):
            _ce(model(x), y).backward()
    for pe, pf in zip(eager.parameters(), fast.parameters()):
        np.testing.assert_array_equal(pf.grad.numpy(), pe.grad.numpy())
    _assert_same(_train(eager, "sgd", _ce, _batches(), set_to_zero=False),
                 _train(fast, "sgd", _ce, _batches(), set_to_zero=False))


def test_an_explicit_grad_tensor_is_the_seed():
    eager, fast, _ = _copies(Net)
    x, y = next(_batches(1))
    for model in (eager, fast):
        F.cross_entropy(model(x), y, reduction="none").backward(rt.to_tensor(np.linspace(0, 1, 8, dtype="float32")))
    for pe, pf in zip(eager.parameters(), fast.parameters()):
        np.testing.assert_array_equal(pf.grad.numpy(), pe.grad.numpy())


def test_graphs_it_does_not_know_are_declined_and_right():
    eager, fast, _ = _copies(Net)
    x, y = next(_batches(1))

    def two_uses(model):
        out = model(x)
        return F.cross_entropy(out, y) + 0.1 * out.mean()

    pre_e, pre_s = nn.Linear(6, 6), nn.Linear(6, 6)
    pre_s.set_state_dict(pre_e.state_dict())
    with _counting() as seen:
        for model, pre in ((eager, pre_e), (fast, pre_s)):
            two_uses(model).backward()
            F.cross_entropy(model(pre(x)), y).backward()  # the converted input itself needs a gradient
    assert seen["fast"] == 0
    for pe, pf in zip(list(eager.parameters()) + list(pre_e.parameters()),
                      list(fast.parameters()) + list(pre_s.parameters())):
        np.testing.assert_allclose(pf.grad.numpy(), pe.grad.numpy(), rtol=1e-6, atol=1e-7)
