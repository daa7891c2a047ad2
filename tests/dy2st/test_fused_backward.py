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
from step_helpers import MLP, assert_same_steps, batches, make_optimizer, step_trajectory


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


# Each configuration as (optimizer kind, weight decay, gradient clipping).
CONFIGS = {"sgd": ("sgd", False, False), "sgd_decay_clip": ("sgd", True, True), "momentum": ("momentum", True, False),
           "adam": ("adam", False, True), "adamw": ("adamw", True, False), "scheduled": ("scheduled", False, False)}


def _train(model, config, loss_fn, data, set_to_zero=True):
    kind, decay, clip = CONFIGS[config]
    opt, sched = make_optimizer(kind, model.parameters(), decay, clip)
    return step_trajectory(model, opt, data, loss_fn, sched, set_to_zero)


def _ce(out, y):
    return F.cross_entropy(out, y)


def _mse(out, y):
    return F.mse_loss(out, F.one_hot(y, 4))


@pytest.mark.parametrize("kind", ["sgd", "sgd_decay_clip", "momentum", "adam", "adamw", "scheduled"])
def test_training_is_bitwise_eager_and_takes_the_fast_path(kind):
    eager, fast, walk = _copies(MLP)
    want = _train(eager, kind, _ce, batches())
    with _counting() as seen:
        got = _train(fast, kind, _ce, batches())
    assert seen["fast"] == 4
    with _walk_only():
        walked = _train(walk, kind, _ce, batches())
    assert_same_steps(want, got)
    assert_same_steps(walked, got)


def test_mse_loss_root_and_loss_inside_the_function():
    eager, fast, _ = _copies(MLP)
    with _counting() as seen:
        assert_same_steps(_train(eager, "adam", _mse, batches()), _train(fast, "adam", _mse, batches()))
    assert seen["fast"] == 4

    class WithLoss(nn.Layer):
        def __init__(self):
            super().__init__()
            self.net = MLP()

        def forward(self, x, y):
            return F.cross_entropy(self.net(x), y)

    rt.seed(5)
    e = WithLoss()
    s = WithLoss()
    s.set_state_dict(e.state_dict())
    s = dy2st.to_static(s)
    for model in (e, s):
        x, y = next(batches(1))
        model(x, y).backward()
    with _counting() as seen:
        s(x, y).backward()
    assert seen["fast"] == 1
    e(x, y).backward()
    for pe, ps in zip(e.parameters(), s.parameters()):
        np.testing.assert_array_equal(ps.grad.numpy(), pe.grad.numpy())


@pytest.mark.filterwarnings("ignore:.*had a gradient in an earlier step")  # a step skips a parameter on purpose
def test_a_parameter_without_gradient_in_a_step():
    # the first two batches take the branch (fc2 used), the last two do not (fc2.grad stays None)
    eager, fast, walk = _copies(Gated, seed=7)
    signs = [True, True, False, False]
    want = _train(eager, "momentum", _ce, batches(sign=signs))
    got = _train(fast, "momentum", _ce, batches(sign=signs))
    assert got[-1][1][2] is None and got[0][1][2] is not None
    assert_same_steps(want, got)


def test_grads_accumulate_without_clear_grad_and_with_set_to_zero_false():
    eager, fast, _ = _copies(MLP)
    x, y = next(batches(1))
    for model in (eager, fast):
        for _ in range(3):
            _ce(model(x), y).backward()
    for pe, pf in zip(eager.parameters(), fast.parameters()):
        np.testing.assert_array_equal(pf.grad.numpy(), pe.grad.numpy())
    assert_same_steps(_train(eager, "sgd", _ce, batches(), set_to_zero=False),
                 _train(fast, "sgd", _ce, batches(), set_to_zero=False))


def test_an_explicit_grad_tensor_is_the_seed():
    eager, fast, _ = _copies(MLP)
    x, y = next(batches(1))
    for model in (eager, fast):
        F.cross_entropy(model(x), y, reduction="none").backward(rt.to_tensor(np.linspace(0, 1, 8, dtype="float32")))
    for pe, pf in zip(eager.parameters(), fast.parameters()):
        np.testing.assert_array_equal(pf.grad.numpy(), pe.grad.numpy())


def test_graphs_it_does_not_know_are_declined_and_right():
    eager, fast, _ = _copies(MLP)
    x, y = next(batches(1))

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
