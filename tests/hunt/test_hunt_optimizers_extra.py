"""rt.optimizer.NAdam, RAdam, Adadelta, Rprop and Lamb: four steps equal Paddle 3.3's (values
hard-coded; they matched bitwise when written), eagerly and inside a converted training step (the
compiled step runs the same update), and the state dict round-trips with Paddle's accumulator keys."""
import numpy as np
import pytest

import runtime as rt
from tests.step_helpers import squared_sum, train_step

_W0 = np.sin(np.arange(6)).reshape(3, 2).astype("float32")
_B0 = np.array([0.5, -0.3], "float32")
_XS = [np.cos(np.arange(12) * (i + 1)).reshape(4, 3).astype("float32") for i in range(4)]

CASES = [
    ("NAdam", {"learning_rate": 0.01, "weight_decay": 0.01}, [-0.012039998546242714, 0.8210452198982239],
     [0.4811129868030548, -0.29336899518966675]),
    ("RAdam", {"learning_rate": 0.01, "beta2": 0.9}, [-0.1492512971162796, 0.5859050154685974],
     [0.3369017243385315, -0.33655643463134766]),
    ("Adadelta", {"learning_rate": 0.5, "weight_decay": 0.01}, [-0.001761455787345767, 0.8369669914245605],
     [0.49595561623573303, -0.298062264919281]),
    ("Rprop", {"learning_rate": 0.01}, [-0.01599999889731407, 0.8134709596633911],
     [0.4636000096797943, -0.27900001406669617]),
    ("Lamb", {"learning_rate": 0.01}, [-0.019348666071891785, 0.812998354434967],
     [0.4798210859298706, -0.30106520652770996]),
]


def _linear():
    return rt.nn.Linear(3, 2, weight_attr=rt.ParamAttr(name="opt_w"), bias_attr=rt.ParamAttr(name="opt_b"))


def _train(name, kw, convert, steps=_XS):
    layer = _linear()
    layer.weight.set_value(_W0)
    layer.bias.set_value(_B0)
    opt = getattr(rt.optimizer, name)(parameters=layer.parameters(), **kw)

    fn = train_step(layer, opt, convert, loss_fn=squared_sum)
    for x in steps:
        fn(rt.to_tensor(x))
    return layer, opt


@pytest.mark.parametrize("name, kw, w_row0, bias", CASES, ids=[c[0] for c in CASES])
def test_matches_paddle_eager_and_converted(name, kw, w_row0, bias):
    eager, opt = _train(name, kw, False)
    conv, _ = _train(name, kw, True)
    np.testing.assert_allclose(eager.weight.numpy()[0], w_row0, rtol=0, atol=1e-7)
    np.testing.assert_allclose(eager.bias.numpy(), bias, rtol=0, atol=1e-7)
    np.testing.assert_array_equal(conv.weight.numpy(), eager.weight.numpy())
    np.testing.assert_array_equal(conv.bias.numpy(), eager.bias.numpy())
    # resuming from the state dict after two steps gives the four-step result
    half, half_opt = _train(name, kw, False, _XS[:2])
    state = half_opt.state_dict()
    assert f"opt_w_{half_opt._accumulator_names[0]}_0" in state
    layer = _linear()
    layer.set_state_dict(half.state_dict())
    opt2 = getattr(rt.optimizer, name)(parameters=layer.parameters(), **kw)
    opt2.set_state_dict(state)
    for x in _XS[2:]:
        (layer(rt.to_tensor(x)) ** 2).sum().backward()
        opt2.step()
        opt2.clear_grad()
    np.testing.assert_array_equal(layer.bias.numpy(), eager.bias.numpy())
