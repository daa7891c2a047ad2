"""``rt.optimizer.Adadelta`` and ``rt.optimizer.Lamb`` (two of the Paddle train-step tests' optimizers):
the weights Paddle 2.x reaches after three steps, eagerly and inside a converted training step
(bitwise equal to eager), and a resume from ``state_dict`` that continues exactly."""
import numpy as np
import pytest

import runtime as rt
from tests.step_helpers import squared_sum, train_step

# Paddle 3.3's weights after the three steps below (float32 kernels; compared to float rounding).
PADDLE = {
    "adadelta": [[0.11981721222400665, -0.11048471182584763], [0.6044077277183533, 0.12706001102924347],
                 [-0.4976915121078491, 0.3283916115760803]],
    "lamb": [[0.08609650284051895, -0.08319099247455597], [0.576541543006897, 0.15121544897556305],
             [-0.47447848320007324, 0.3013796806335449]],
}
MAKE = {
    "adadelta": lambda ps: rt.optimizer.Adadelta(learning_rate=0.5, epsilon=1e-4, rho=0.8, parameters=ps),
    "lamb": lambda ps: rt.optimizer.Lamb(learning_rate=0.05, lamb_weight_decay=0.1, parameters=ps),
}


def _data():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 2)).astype("float32")
    return w0, [rng.standard_normal((4, 3)).astype("float32") for _ in range(3)]


def _run(name, convert, xs, w0, opt_state=None, layer=None):
    if layer is None:
        layer = rt.nn.Linear(3, 2, bias_attr=False)
        layer.weight.set_value(w0)
    opt = MAKE[name](layer.parameters())
    if opt_state is not None:
        opt.set_state_dict(opt_state)

    fn = train_step(layer, opt, convert, loss_fn=squared_sum)
    losses = [fn(rt.to_tensor(x)).numpy() for x in xs]
    return layer.weight.numpy(), losses, opt, layer


@pytest.mark.parametrize("name", sorted(MAKE))
def test_matches_paddle_and_converted_is_bitwise(name):
    w0, xs = _data()
    w_eager, l_eager, _, _ = _run(name, False, xs, w0)
    w_conv, l_conv, _, _ = _run(name, True, xs, w0)
    np.testing.assert_allclose(w_eager, np.array(PADDLE[name], "float32"), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w_eager, w_conv)
    for a, b in zip(l_eager, l_conv):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(MAKE))
def test_resume_from_state_dict(name):
    w0, xs = _data()
    w_all, _, _, _ = _run(name, False, xs, w0)
    _, _, opt, layer = _run(name, False, xs[:2], w0)
    # a new optimizer on the same layer, resumed from the state after two steps, takes the third converted
    w_resumed, _, _, _ = _run(name, True, xs[2:], None, opt_state=opt.state_dict(), layer=layer)
    np.testing.assert_array_equal(w_all, w_resumed)
