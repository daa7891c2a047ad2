"""``LBFGS.step(closure)`` inside a converted function: its line search needs the loss values in
Python, so it is refused at the user's line with what to do instead (it failed deep inside the
optimizer with a message about a static Variable used as a number).  Outside the converted function,
with the closure calling a converted model, it trains as eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import line_of, notes

_X = np.cos(np.arange(12)).reshape(4, 3).astype("float32")


def _model():
    net = rt.nn.Linear(3, 2)
    net.weight.set_value(np.linspace(-0.3, 0.4, 6).reshape(3, 2).astype("float32"))
    return net, rt.optimizer.LBFGS(0.5, max_iter=3, parameters=net.parameters())


def test_lbfgs_step_inside_is_refused_at_the_line():
    net, opt = _model()

    def step(x):
        def closure():
            opt.clear_grad()
            loss = (net(x) ** 2).mean()
            loss.backward()
            return loss
        return opt.step(closure)
    with pytest.raises(NotImplementedError, match=r"LBFGS.step\(closure\) inside a converted function") as info:
        dy2st.to_static(step)(rt.to_tensor(_X))
    assert f"line {line_of(step, 'opt.step(closure)')}" in notes(info.value)


def test_lbfgs_outside_with_a_converted_model_trains_as_eager():
    results = []
    for convert in (False, True):
        net, opt = _model()
        model = dy2st.to_static(net) if convert else net

        def closure():
            opt.clear_grad()
            loss = (model(rt.to_tensor(_X)) ** 2).mean()
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(3)]
        results.append((losses, net.weight.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=0, atol=1e-6)
