"""`scheduler.step()` inside a converted training step ran once, while the Program was built: the
rate then stayed at its second value for every later call (eager halves it at every call). It is
a `lr_scheduler_step` op now, run at every call in its place among the update ops."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _step_decay():
    return rt.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)


def _warm_restarts():  # a schedule with its own stepping rule (``_advance``)
    return rt.optimizer.lr.CosineAnnealingWarmRestarts(learning_rate=0.1, T_0=2, T_mult=2)


def _train(convert, sched_first, opt_cls, make_sched=_step_decay):
    rt.seed(0)
    net = rt.nn.Linear(3, 2)
    sched = make_sched()
    opt = opt_cls(learning_rate=sched, parameters=net.parameters())

    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        if sched_first:
            sched.step()
        opt.step()
        opt.clear_grad()
        if not sched_first:
            sched.step()
        return loss

    fn = dy2st.to_static(step) if convert else step
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(4):
        loss = fn(rt.to_tensor(rng.standard_normal((4, 3)).astype("float32")), rt.to_tensor(rng.integers(0, 2, (4,))))
        seen.append((float(loss), sched.last_epoch, sched()))
    return seen, [p.numpy().copy() for p in net.parameters()]


@pytest.mark.parametrize("sched_first", [False, True])
@pytest.mark.parametrize("opt_cls", [rt.optimizer.SGD, rt.optimizer.Adam])
def test_scheduler_steps_at_every_call(sched_first, opt_cls):
    want_seen, want = _train(False, sched_first, opt_cls)
    got_seen, got = _train(True, sched_first, opt_cls)
    assert got_seen == want_seen
    for a, b in zip(want, got):
        np.testing.assert_array_equal(b, a)


def test_a_schedule_with_its_own_stepping_rule_steps_at_every_call():
    want_seen, want = _train(False, False, rt.optimizer.SGD, _warm_restarts)
    got_seen, got = _train(True, False, rt.optimizer.SGD, _warm_restarts)
    assert got_seen == want_seen and len({lr for _, _, lr in got_seen}) == 3  # 0.1, 0.085, 0.05, restart
    for a, b in zip(want, got):
        np.testing.assert_array_equal(b, a)


def test_reduce_on_plateau_step_in_converted_code_is_refused():
    sched = rt.optimizer.lr.ReduceOnPlateau(learning_rate=0.1)

    def step(x):
        sched.step(x.sum())
        return x * 2

    with pytest.raises(TypeError, match="ReduceOnPlateau.step"):
        dy2st.to_static(step)(rt.ones([2]))


def test_scheduler_step_under_a_tensor_condition_is_refused():
    sched = rt.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1)

    def step(x):
        if x.sum() > 0:
            sched.step()
        return x * 2

    with pytest.raises(NotImplementedError, match="scheduler.step"):
        dy2st.to_static(step)(rt.ones([2]))
