"""A converted training step that returns a parameter its ``opt.step()`` updated: eagerly that is the
parameter object itself, which no Program output can be, so it is an error at the line saying so (the
message spoke of a trainable tensor made inside the function); a copy (``detach()``) is returned with
the updated values, as eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import line_of, notes


def _model():
    net = rt.nn.Linear(3, 2)
    net.weight.set_value(np.linspace(-0.3, 0.4, 6).reshape(3, 2).astype("float32"))
    return net, rt.optimizer.SGD(0.1, parameters=net.parameters())


def test_returning_the_updated_parameter_is_refused_with_why():
    net, opt = _model()

    def step(x):
        loss = (net(x) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss, net.weight
    with pytest.raises(TypeError, match=r"returns a parameter its opt.step\(\) updated") as info:
        dy2st.to_static(step)(rt.ones([1, 3]))
    # the line that completed the update (step and clear_grad run as one op)
    assert f"line {line_of(step, 'opt.clear_grad()')}" in notes(info.value)


def test_returning_a_copy_of_the_updated_parameter():
    got = []
    for convert in (False, True):
        net, opt = _model()

        def step(x):
            loss = (net(x) ** 2).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss, net.weight.detach()
        fn = dy2st.to_static(step) if convert else step
        got.append([fn(rt.to_tensor([[1.0, -2.0, 0.5]]))[1].numpy() for _ in range(2)])
    np.testing.assert_array_equal(got[1], got[0])
