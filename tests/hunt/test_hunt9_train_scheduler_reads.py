"""A scheduler's ``last_lr``, ``last_epoch`` and ``get_lr()`` read inside a converted training step.
They were read once, while the Program was built, and held as constants, so a loss weighted by the
epoch or the rate (``loss * sched.last_lr``, ``if sched.last_epoch < 2:``) kept the first call's
value at every call while the scheduler stepped (inside the step or between calls): silently wrong
losses and parameters.  They are now read when the Program runs and meet tensors as the Python
numbers they are eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.optimizer import lr as L

_X = [np.cos(np.arange(12) * (i + 1)).reshape(4, 3).astype("float32") for i in range(4)]

WEIGHTS = {
    "last_epoch": lambda s: s.last_epoch + 1,
    "last_lr": lambda s: s.last_lr * 10,
    "get_lr": lambda s: s.get_lr() * 10,
    "if_epoch": lambda s: 2.0 if s.last_epoch < 2 else 1.0,
    "epoch_div": lambda s: (s.last_epoch + 2) / 2,
}


def _run(convert, weight, inside):
    net = rt.nn.Linear(3, 2)
    net.weight.set_value(np.linspace(-0.3, 0.4, 6).reshape(3, 2).astype("float32"))
    sched = L.StepDecay(0.1, 1, 0.5)
    opt = rt.optimizer.SGD(sched, parameters=net.parameters())

    def step(x):
        loss = (net(x) ** 2).mean() * WEIGHTS[weight](sched)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if inside:
            sched.step()
        return loss
    fn = dy2st.to_static(step) if convert else step
    out = []
    for x in _X:
        out.append(fn(rt.to_tensor(x)).numpy())
        if not inside:
            sched.step()
    return out, net.weight.numpy(), sched.last_epoch, sched.last_lr


@pytest.mark.parametrize("inside", [True, False], ids=["stepped_inside", "stepped_outside"])
@pytest.mark.parametrize("weight", list(WEIGHTS))
def test_scheduler_state_read_at_every_call(weight, inside):
    want = _run(False, weight, inside)
    got = _run(True, weight, inside)
    for a, b in zip(want[0], got[0]):
        assert b.dtype == a.dtype
        np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2:] == want[2:] and type(got[2]) is int


def test_setting_scheduler_state_inside_is_refused():
    sched = L.StepDecay(0.1, 1, 0.5)

    @dy2st.to_static
    def reset(x):
        sched.last_epoch = 0
        return x * sched()
    with pytest.raises(TypeError, match=r"StepDecay.last_epoch = \.\.\.` in a converted function"):
        reset(rt.ones([2]))
    assert sched.last_epoch == 0 and sched.last_lr == 0.1
