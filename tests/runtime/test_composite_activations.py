"""The composite activations as layers, eagerly and converted (their ops checked in test_ops_registry)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.nn import functional as F
from static_helpers import building

LAYERS = [
    (rt.nn.Softplus(beta=2, threshold=5), lambda x: F.softplus(x, 2, 5)),
    (rt.nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2)),
    (rt.nn.ELU(0.5), lambda x: F.elu(x, 0.5)),
    (rt.nn.Silu(), F.silu),
    (rt.nn.Swish(), F.swish),
    (rt.nn.LogSigmoid(), F.log_sigmoid),
    (rt.nn.Mish(), F.mish),
]


@pytest.mark.parametrize("layer, fn", LAYERS, ids=[type(lay).__name__ for lay, _ in LAYERS])
def test_layer_is_its_function(layer, fn):
    x = rt.to_tensor(np.linspace(-4, 4, 12, dtype="float32").reshape(3, 4))
    np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())


def test_converted_model_with_composite_activations_trains_like_eager():
    def make():
        rt.seed(5)
        return rt.nn.Sequential(rt.nn.Linear(4, 6), rt.nn.Softplus(), rt.nn.Linear(6, 6), rt.nn.Mish(),
                                rt.nn.Linear(6, 3), rt.nn.LeakyReLU(0.1))

    eager, static = make(), dy2st.to_static(make())
    x = rt.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))
    for net in (eager, static):
        net(x).sum().backward()
    np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-6, atol=1e-6)
    for pe, ps in zip(eager.parameters(), static.parameters()):
        np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_fc_takes_a_composite_activation():
    main, startup = rt.static.Program(), rt.static.Program()
    with building(main, startup):
        x = rt.static.data("x", [None, 3], "float32")
        out = rt.static.nn.fc(x, 2, activation="softplus")
    assert "softplus" not in {op.type for op in main.global_block().ops}  # made of registered ops
    exe = rt.static.Executor()
    exe.run(startup)
    res, = exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[out])
    assert res.shape == (2, 2) and (res > 0).all()
