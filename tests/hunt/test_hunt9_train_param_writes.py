"""A converted training step that writes a parameter before its update (``add_``/``set_value``
under ``no_grad``, a weight constraint): the Program stores such writes into the eager tensor only
at its end, and the update, which acts on the eager tensor, must still start from the written
value, as ``opt.step()`` does eagerly.  Before, the write was lost: the update began from the
value the parameter had before the call and its result overwrote the write (also for a write
between ``backward()`` and ``opt.step()``)."""
import numpy as np
import pytest

import dy2st
import runtime as rt

_X = [np.array([[1.0, 2.0, 3.0]], "float32"), np.array([[-0.5, 0.25, 2.0]], "float32"),
      np.array([[0.3, -1.0, 0.7]], "float32")]


def _run(convert, opt_name, write):
    net = rt.nn.Linear(3, 2)
    net.weight.set_value(np.linspace(-0.3, 0.4, 6).reshape(3, 2).astype("float32"))
    net.bias.set_value(np.array([0.1, -0.2], "float32"))
    kw = {"momentum": 0.9} if opt_name == "Momentum" else {}
    opt = getattr(rt.optimizer, opt_name)(0.1, parameters=net.parameters(), **kw)

    def step(x):
        with rt.no_grad():
            if write == "add_":
                net.weight.add_(rt.ones_like(net.weight) * 0.01)
            elif write == "set_value":
                net.bias.set_value(net.bias * 0.5)
        loss = (net(x) ** 2).sum()
        loss.backward()
        if write == "between":  # after the backward, before the step: the step reads the new value
            with rt.no_grad():
                net.weight.set_value(net.weight * 0.5)
        opt.step()
        opt.clear_grad()
        return loss
    fn = dy2st.to_static(step) if convert else step
    losses = [float(fn(rt.to_tensor(x))) for x in _X]
    return losses, net.weight.numpy(), net.bias.numpy()


@pytest.mark.parametrize("opt_name", ["SGD", "Adam", "Momentum"])
@pytest.mark.parametrize("write", ["add_", "set_value", "between"])
def test_update_starts_from_the_written_parameter(opt_name, write):
    want = _run(False, opt_name, write)
    got = _run(True, opt_name, write)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])
