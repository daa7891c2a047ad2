"""``p.stop_gradient = True`` on a parameter inside a converted training step.  Eagerly the first
call still trains ``p`` (its backward and step come before the line) and later calls do not.  The
flag was set once while the Program was built, so the Program's update skipped ``p`` from the first
call on: the parameter never moved and every later loss differed, silently.  Changing an eager
tensor's flag inside a converted function is now an error at that line; between calls it works."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import line_of, notes

_X = [np.array([[1.0, 2.0, 3.0]], "float32"), np.array([[-0.5, 0.25, 2.0]], "float32")]


def _model():
    net = rt.nn.Linear(3, 2)
    net.weight.set_value(np.linspace(-0.3, 0.4, 6).reshape(3, 2).astype("float32"))
    net.bias.set_value(np.array([0.1, -0.2], "float32"))
    return net, rt.optimizer.SGD(0.1, parameters=net.parameters())


def test_freezing_a_parameter_inside_the_step_is_an_error_at_the_line():
    net, opt = _model()

    @dy2st.to_static
    def step(x):
        loss = (net(x) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        net.bias.stop_gradient = True
        return loss
    with pytest.raises(TypeError, match="stop_gradient = True` on an eager tensor") as info:
        step(rt.to_tensor(_X[0]))
    assert "net.bias.stop_gradient = True" in str(info.value)
    assert not net.bias.stop_gradient


def test_setting_the_flag_it_already_has_is_allowed():
    net, opt = _model()

    def step(x):
        net.bias.stop_gradient = False
        loss = (net(x) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    eager_net, eager_opt = _model()
    static = dy2st.to_static(step)
    for x in _X:
        got = static(rt.to_tensor(x))
        loss = (eager_net(rt.to_tensor(x)) ** 2).sum()
        loss.backward()
        eager_opt.step()
        eager_opt.clear_grad()
        np.testing.assert_array_equal(got.numpy(), loss.numpy())
    np.testing.assert_array_equal(net.bias.numpy(), eager_net.bias.numpy())


def test_freezing_between_calls_follows_eager():
    results = []
    for convert in (False, True):
        net, opt = _model()

        def step(x):
            loss = (net(x) ** 2).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        fn = dy2st.to_static(step) if convert else step
        losses = [float(fn(rt.to_tensor(_X[0])))]
        net.bias.stop_gradient = True
        losses += [float(fn(rt.to_tensor(x))) for x in _X]
        results.append((losses, net.weight.numpy(), net.bias.numpy()))
    for a, b in zip(*results):
        np.testing.assert_array_equal(b, a)


FLAG_WRITES = {
    "trainable": lambda p: setattr(p, "trainable", False),
    "requires_grad": lambda p: setattr(p, "requires_grad", False),
    "requires_grad_": lambda p: p.requires_grad_(False),
}


@pytest.mark.parametrize("how", list(FLAG_WRITES))
def test_trainable_and_requires_grad_inside_the_step_are_errors_at_the_line(how):
    # the same flag through Paddle's other spellings: each froze the parameter from the first call on
    net, opt = _model()

    def step(x):
        loss = (net(x) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        FLAG_WRITES[how](net.bias)
        return loss
    with pytest.raises(TypeError, match="on an eager tensor") as info:
        dy2st.to_static(step)(rt.to_tensor(_X[0]))
    assert f"line {line_of(step, 'FLAG_WRITES[how]')}" in notes(info.value)
    assert not net.bias.stop_gradient
