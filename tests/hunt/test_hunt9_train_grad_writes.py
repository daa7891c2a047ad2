"""Writes into ``p.grad`` between ``backward()`` and ``opt.step()`` inside a converted training step
(``p.grad.set_value(p.grad * 0.5)``, ``rt.assign(..., output=p.grad)``, ``p.grad[0] = 0``,
``p.grad.zero_()``).  The Program reads a copy of ``.grad``, so the write changed the copy only and
the step used the unscaled gradient: with SGD the parameters silently moved twice as far as eager
ones.  Like ``scale_``, each is now an error at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import line_of, notes

WRITES = {
    "set_value": lambda g: g.set_value(g * 0.5),
    "assign": lambda g: rt.assign(g * 0.5, output=g),
    "setitem": lambda g: g.__setitem__(0, 0.0),
    "zero_": lambda g: g.zero_(),
}


def _model():
    net = rt.nn.Linear(3, 2)
    net.weight.set_value(np.ones((3, 2), "float32"))
    return net, rt.optimizer.SGD(0.1, parameters=net.parameters())


@pytest.mark.parametrize("write", list(WRITES))
def test_write_into_grad_before_step_is_refused_at_the_line(write):
    net, opt = _model()
    before = net.weight.numpy()

    def step(x):
        loss = (net(x) ** 2).sum()
        loss.backward()
        with rt.no_grad():
            WRITES[write](net.weight.grad)
        opt.step()
        opt.clear_grad()
        return loss
    static = dy2st.to_static(step)
    with pytest.raises(NotImplementedError, match=r"in-place write into a tensor's .grad") as info:
        static(rt.to_tensor([[1.0, 2.0, 3.0]]))
    assert f"line {line_of(step, 'WRITES[write]')}" in notes(info.value)
    np.testing.assert_array_equal(net.weight.numpy(), before)


def test_eager_reference_of_the_scaled_step():
    # what the refused code computes eagerly: the halved gradient moves the weight half as far
    net, opt = _model()
    loss = (net(rt.to_tensor([[1.0, 2.0, 3.0]])) ** 2).sum()
    loss.backward()
    with rt.no_grad():
        net.weight.grad.set_value(net.weight.grad * 0.5)
    opt.step()
    np.testing.assert_allclose(net.weight.numpy()[:, 0], [0.4, -0.2, -0.8], rtol=1e-6)
