"""Paddle's Orthogonal, Dirac, calculate_gain, set_global_initializer, rt.create_parameter and
nn.utils (weight_norm / remove_weight_norm, clip_grad_norm_, clip_grad_value_, parameters_to_vector,
vector_to_parameters): Paddle 3.3's values (hard-coded), and a weight-normed model converted
against eager with gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn

init = nn.initializer


def test_initializers_and_gain():
    assert init.calculate_gain("leaky_relu") == np.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("tanh") == 5.0 / 3 and init.calculate_gain("conv2d") == 1
    with pytest.raises(ValueError, match="not supported"):
        init.calculate_gain("swish")
    rt.seed(0)
    w = init.Orthogonal(gain=2.0).generate([3, 2, 2], "float32").reshape(3, 4)
    np.testing.assert_allclose(w @ w.T, 4 * np.eye(3), atol=1e-5)
    d = init.Dirac(groups=2).generate([4, 3, 3], "float32")   # Paddle's: ones at [g*2+j, j, 1]
    assert d.sum() == 4 and d[0, 0, 1] == d[1, 1, 1] == d[2, 0, 1] == d[3, 1, 1] == 1
    try:
        init.set_global_initializer(init.Constant(0.5), init.Constant(0.25))
        lin, own = nn.Linear(2, 2), nn.Linear(2, 2, weight_attr=init.Constant(3.0))
        assert lin.weight.numpy()[0, 0] == 0.5 and lin.bias.numpy()[0] == 0.25 and own.weight.numpy()[0, 0] == 3.0
    finally:
        init.set_global_initializer(None)
    assert nn.Linear(2, 2).bias.numpy()[0] == 0
    p = rt.create_parameter([2, 3], "float64", default_initializer=init.Constant(1.5))
    assert p.dtype == rt.float64 and not p.stop_gradient and p.name.startswith("create_parameter_")
    assert float(p.numpy()[1, 2]) == 1.5


class WN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.fc.weight.set_value(np.sin(np.arange(12)).reshape(3, 4).astype("float32"))
        self.fc.bias.set_value(np.zeros(4, "float32"))
        nn.utils.weight_norm(self.fc, dim=1)

    def forward(self, x):
        return self.fc(x)


def test_weight_norm_matches_paddle_converts_and_removes():
    x = rt.to_tensor(np.cos(np.arange(6)).reshape(2, 3).astype("float32"))
    eager, conv = WN(), WN()
    assert sorted(eager.state_dict()) == ["fc.bias", "fc.weight_g", "fc.weight_v"]
    np.testing.assert_allclose(eager.fc.weight_g.numpy(), [1.2456242, 1.3406905, 1.0958347, 1.2047932], rtol=1e-6)
    conv = dy2st.to_static(conv)
    for _ in range(2):
        out = eager(x)
        (out ** 2).sum().backward()
        (conv(x) ** 2).sum().backward()
    np.testing.assert_allclose(out.numpy()[0], [-0.8206204, 0.15186027, 0.98472124, 0.9122341], rtol=1e-5)
    np.testing.assert_allclose(eager.fc.weight_g.grad.numpy() / 2, [2.0464327, 0.04631267, 3.1571305, 2.588731],
                               rtol=1e-4)
    for (name, pe), pc in zip(eager.named_parameters(), conv.parameters()):
        np.testing.assert_allclose(pc.grad.numpy(), pe.grad.numpy(), rtol=1e-6, atol=1e-6, err_msg=name)
    before = eager(x).numpy()
    nn.utils.remove_weight_norm(eager.fc)
    assert sorted(eager.state_dict()) == ["fc.bias", "fc.weight"]
    np.testing.assert_allclose(eager(x).numpy(), before, rtol=1e-6)


def test_grad_clipping_and_vectors():
    p = rt.to_tensor(np.arange(6, dtype="float32").reshape(3, 2) - 2, stop_gradient=False)
    (p ** 2).sum().backward()
    total = nn.utils.clip_grad_norm_([p], 1.0)
    assert float(total) == pytest.approx(8.717798233032227, rel=1e-7)
    np.testing.assert_allclose(p.grad.numpy()[2], [0.4588314, 0.68824708], rtol=1e-6)
    nn.utils.clip_grad_value_(p, 0.5)
    assert p.grad.numpy().max() == np.float32(0.5)
    q = rt.to_tensor(np.ones(2, "float32"), stop_gradient=False)
    vec = nn.utils.parameters_to_vector([p, q])
    assert vec.shape == [8] and not vec.stop_gradient
    nn.utils.vector_to_parameters(vec * 2, [p, q])
    assert p.numpy()[2, 1] == 6 and q.numpy()[1] == 2

    @dy2st.to_static
    def inside(x):
        nn.utils.clip_grad_value_([p], 1.0)
        return x + 1
    with pytest.raises(RuntimeError, match="dynamic mode"):
        inside(rt.to_tensor([1.0]))


def _spectral():
    layer = nn.Linear(4, 3)
    nn.utils.spectral_norm(layer)
    state = {"weight_orig": np.sin(np.arange(12)).reshape(4, 3), "bias": np.zeros(3),
             "weight_u": np.cos(np.arange(3)), "weight_v": np.cos(np.arange(4) + 1.0)}
    layer.set_state_dict({k: rt.to_tensor(v.astype("float32")) for k, v in state.items()})
    return layer


def test_spectral_norm_matches_paddle_and_converts():
    x = rt.to_tensor(np.cos(np.arange(8) * 0.3).reshape(2, 4).astype("float32"))
    eager, conv = _spectral(), _spectral()
    assert sorted(eager.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    out = eager(x)
    out.sum().backward()
    # Paddle 3.3's output, power-iterated u and gradient for the same state (training mode)
    np.testing.assert_allclose(out.numpy()[0], [0.09268225, 0.18638755, 0.10872902], rtol=1e-5)
    np.testing.assert_allclose(eager.weight_u.numpy(), [0.29608223, -0.48661047, -0.82191575], rtol=1e-5)
    np.testing.assert_allclose(eager.weight_orig.grad.numpy()[0], [0.7703884, 0.8150483, 0.8341805], rtol=1e-5)
    conv = dy2st.to_static(conv)
    conv(x).sum().backward()
    for _ in range(2):   # the buffers move on at every training step, in both
        eager(x).sum().backward()
        conv(x).sum().backward()
    np.testing.assert_allclose(conv.weight_u.numpy(), eager.weight_u.numpy(), rtol=1e-6)
    np.testing.assert_allclose(conv.weight_orig.grad.numpy(), eager.weight_orig.grad.numpy(), rtol=1e-5)
    eager.eval(), conv.eval()
    np.testing.assert_allclose(conv(x).numpy(), eager(x).numpy(), rtol=1e-6)
