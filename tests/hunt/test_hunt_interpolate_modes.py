"""`F.interpolate` / `nn.Upsample` modes 'bicubic' (both align_corners) and 'area': values and input
gradients against PaddlePaddle 3.3 (hard-coded below), and an upsampling model converted with
to_static against eager, gradients included."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

# PaddlePaddle 3.3 on _x() ([1, 1, 3, 4]): outputs and the gradients of sum(y * _w(y.shape)).
_CUBIC = [
    1.20887, 1.12245, 0.82, 0.39843, -0.23407, -0.64106, 0.1364, 0.05726, -0.06758, -0.15319, -0.21823,
    -0.23928, -0.94272, -0.98117, -0.88367, -0.61295, -0.11004, 0.24526, -0.04439, 0.0385, 0.15382,
    0.21301, 0.22897, 0.21535, 0.91918, 1.0924, 1.17476, 0.98521, 0.48248, 0.08742]
_CUBIC_DX = [
    0.39031, 2.40396, -0.09972, -2.37876, -0.80962, 2.34461, 1.11181, -2.1731, -1.74806, 1.52799,
    1.96424, -1.26557]
_CUBIC_AC = [
    1, 0.92033, 0.65376, 0.3338, -0.15611, -0.50485, -0.13215, -0.21387, -0.28488, -0.28996, -0.23097,
    -0.15606, -0.94222, -0.98688, -0.87362, -0.63362, -0.17948, 0.18651, -0.26541, -0.20254, -0.08374,
    0.0226, 0.15523, 0.23476, 0.77557, 0.9394, 0.99252, 0.86022, 0.49433, 0.15337]
_CUBIC_AC_DX = [
    0.24618, 2.20995, -0.35407, -1.83588, -1.0364, 2.94284, 1.16367, -2.48115, -1.44124, 1.18342,
    1.69588, -1.0251]
_AREA = [
    -0.02846, -0.12298, -0.15966, -0.02581, 0.08176, 0.15088]
_AREA_DX = [
    0, 0.21037, 0.43769, 0.22732, -0.06985, 0.30476, 0.84928, 0.47466, -0.06985, 0.09439, 0.41159,
    0.24734]
# scale_factor=[0.7, 1.6]: shape paddle.Size([1, 1, 2, 6])
_CUBIC_SCALE = [
    0.60217, 0.53066, 0.36303, 0.15386, -0.14319, -0.35443, 0.05551, 0.13721, 0.24513, 0.29099, 0.27131,
    0.21141]


def _x():
    return np.cos(np.arange(12, dtype="float32") * 0.7).reshape(1, 1, 3, 4)


def _w(shape):
    return np.sin(np.arange(30, dtype="float32")).reshape(1, 1, 5, 6)[..., :shape[2], :shape[3]]


@pytest.mark.parametrize("kw, want, want_dx", [
    (dict(size=[5, 6], mode="bicubic"), _CUBIC, _CUBIC_DX),
    (dict(size=[5, 6], mode="bicubic", align_corners=True), _CUBIC_AC, _CUBIC_AC_DX),
    (dict(size=[2, 3], mode="area"), _AREA, _AREA_DX),
])
def test_modes_match_paddle_values_and_gradients(kw, want, want_dx):
    x = rt.to_tensor(_x(), stop_gradient=False)
    y = F.interpolate(x, **kw)
    (y * rt.to_tensor(_w(y.shape))).sum().backward()
    np.testing.assert_allclose(y.numpy().ravel(), want, atol=2e-5)
    np.testing.assert_allclose(x.grad.numpy().ravel(), want_dx, atol=2e-5)


def test_bicubic_scale_factor_matches_paddle_and_area_needs_a_size():
    y = F.interpolate(rt.to_tensor(_x()), scale_factor=[0.7, 1.6], mode="bicubic")
    assert y.shape == [1, 1, 2, 6]
    np.testing.assert_allclose(y.numpy().ravel(), _CUBIC_SCALE, atol=2e-5)
    with pytest.raises(ValueError, match="area"):
        F.interpolate(rt.to_tensor(_x()), scale_factor=2, mode="area")
    # an NCL input: Paddle's adaptive_avg_pool1d (bins [0, 3), [2, 5), [4, 7))
    y = F.interpolate(rt.arange(7, dtype="float32").reshape([1, 1, 7]), size=3, mode="area")
    np.testing.assert_array_equal(y.numpy(), [[[1.0, 3.0, 5.0]]])


class _Up(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 3, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=False)
        self.up_ac = nn.Upsample(size=[5, 7], mode="bicubic", align_corners=True)

    def forward(self, x):
        h = self.up(self.conv(x))
        if h.mean() > 0:
            h = self.up_ac(h)
        else:
            h = F.interpolate(h, size=[5, 7], mode="area")
        return h


def test_upsampling_model_converted_matches_eager_with_gradients():
    rng = np.random.default_rng(0)
    eager, conv = _Up(), _Up()
    # positive filters: the sign of the input decides the branch
    eager.conv.weight.set_value(np.abs(rng.standard_normal([3, 2, 3, 3])).astype("float32"))
    conv.set_state_dict(eager.state_dict())
    static = dy2st.to_static(conv)
    for shift in (3.0, -3.0):  # both branches
        x = rng.standard_normal((2, 2, 4, 5)).astype("float32") + shift
        res = []
        for net in (eager, static):
            out = net(rt.to_tensor(x))
            (out * out).sum().backward()
            res.append((out.numpy(), net.conv.weight.grad.numpy().copy()))
            net.clear_gradients()
        np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-4, atol=1e-4)
