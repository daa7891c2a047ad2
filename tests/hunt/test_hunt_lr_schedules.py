"""Paddle's other learning-rate schedules (rt.optimizer.lr.NoamDecay...): every step's rate equals
Paddle 3.3's (values hard-coded, compared exactly), ReduceOnPlateau's state round-trips, and a
schedule drives a converted training step as it drives eager."""
import math

import numpy as np
import pytest

import dy2st
import runtime as rt

lr = rt.optimizer.lr


def _run(s, n=7):
    out = []
    for _ in range(n):
        out.append(s())
        s.step()
    return out


@pytest.mark.parametrize("make, want", [
    (lambda: lr.NoamDecay(16, 4, 2.0), [0.0, 0.0625, 0.125, 0.1875, 0.25, 0.22360679774997896, 0.2041241452319315]),
    (lambda: lr.PolynomialDecay(0.5, 3, cycle=True),
     [0.5, 0.3333666666666667, 0.16673333333333334, 0.0001, 0.16673333333333334, 0.08341666666666665, 0.0001]),
    (lambda: lr.OneCycleLR(0.1, 8, three_phase=True, phase_pct=0.4),
     [0.0040000000000000036, 0.04516888776288231, 0.09805566273349588, 0.07193992062409058, 0.011619830424103323,
      0.0035095959589336477, 0.0013585204702670562]),
    (lambda: lr.CyclicLR(0.01, 0.1, 2, 1, mode="triangular2"),
     [0.01, 0.055, 0.09999999999999999, 0.01, 0.03249999999999998, 0.054999999999999966, 0.01]),
    (lambda: lr.LinearLR(0.5, 4, start_factor=0.2), [0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.5, 0.5]),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, 2, 2, 0.01),
     [0.5, 0.255, 0.5, 0.4282411613907041, 0.255, 0.08175883860929586, 0.5]),
    (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9), [0.5, 0.45, 0.405, 0.36450000000000005, 0.32805000000000006,
                                                          0.2952450000000001, 0.2657205000000001]),
    (lambda: lr.InverseTimeDecay(0.5, 0.3), [0.5, 0.3846153846153846, 0.3125] + [0.5 / (1 + 0.3 * e) for e in range(3, 7)]),
    (lambda: lr.NaturalExpDecay(0.5, 0.3), [0.5, 0.37040911034085894, 0.2744058180470132]
     + [0.5 * math.exp(-1 * 0.3 * e) for e in range(3, 7)]),
])
def test_schedules_step_as_paddles(make, want):
    assert _run(make()) == want


def test_reduce_on_plateau_steps_and_state():
    s = lr.ReduceOnPlateau(1.0, patience=1, cooldown=1, factor=0.5)
    got = []
    for m in [3, 2, 2, 2, 2, 1.9999, 2, 2, 2, 2, 2, rt.to_tensor([2.0])]:
        s.step(m)
        got.append(s())
    assert got == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125]   # Paddle 3.3's
    state = s.state_dict()
    assert state == {"cooldown_counter": 0, "best": 2, "num_bad_epochs": 1, "last_epoch": 12, "last_lr": 0.125}
    other = lr.ReduceOnPlateau(1.0)
    other.set_state_dict(state)
    assert other.state_dict() == state


def test_schedule_drives_a_converted_training_step():
    def run(convert):
        rt.seed(0)
        layer = rt.nn.Linear(3, 2)
        sched = lr.OneCycleLR(0.1, 6)
        opt = rt.optimizer.Momentum(learning_rate=sched, parameters=layer.parameters())

        def step(x):
            loss = layer(x).square().mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        fn = dy2st.to_static(step) if convert else step
        for i in range(5):
            fn(rt.to_tensor(np.full((4, 3), 0.1 * i + 0.5, "float32")))
            sched.step()
        return layer.weight.numpy()
    np.testing.assert_array_equal(run(True), run(False))
