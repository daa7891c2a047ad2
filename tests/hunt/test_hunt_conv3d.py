"""3-D convolution and pooling (`F.conv3d`, `F.max_pool3d`, `F.avg_pool3d` and their layers),
`BatchNorm3D`, `InstanceNorm1D`/`3D`: values and gradients against PaddlePaddle 3.3 (hard-coded
below), channels-last inputs, and a small 3-D network converted with to_static against eager."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

# PaddlePaddle 3.3: conv3d(x, w, stride=[1, 2, 1], padding=[1, 0, 0, 1, 1, 0], dilation=[1, 1, 2],
# groups=2) of the inputs in _conv_inputs; loss sum(y * y) / 2, dx summed over batch and channels.
_CONV_Y = [
    -0.63225, -0.45095, -0.31654, -0.02837, 0.13073, 0.09373, 0.62155, 0.3754, 0.52323, 0.258, -0.51325,
    -0.39622, 1.327, 2.14931, 2.29713, 1.24676, 0.89114, 1.00817, 0.09507, 2.71408, 2.82692, 3.17606,
    6.13591, 6.31104, -2.17395, -1.36442, -1.44071, 1.07604, 4.4627, 4.53217, -3.08468, -2.27993,
    -2.35622, 1.07162, 5.29631, 5.36578]
_CONV_DW = [
    2.4151, 4.8664, 2.4107, 4.0979, 10.7173, 17.7758, 9.2537, 13.4417, 55.3276, 48.6736, -28.2669,
    -49.7585, 127.6265, 132.2098, -20.2907, -46.6898]
_CONV_DX = [
    3.159, 5.5488, 3.781, 4.0709, 0.9267, -0.1001, -2.7795, -2.9106, 3.9298, 6.2417, 1.2617, 1.41,
    1.0843, 2.8133, 2.1069, 2.229, 1.1925, 2.1192, -0.8183, -0.7956, 4.2219, 5.0578, -0.4401, -0.3439,
    -3.3288, -5.9126, -1.4592, -1.4865, 1.752, 5.2273, 3.3524, 3.5218, 3.8868, 5.195, 5.0589, 5.1551]
# max_pool3d(x, 3, stride=2, padding=1, ceil_mode=True) and avg_pool3d(x, [2, 3, 3], stride=2,
# padding=[0, 1, 1, 0, 1, 1], exclusive=False) of _pool_input; loss sum(max) + sum(avg ** 2).
_MAX = [
    0.84147, 0.99991, 0.99991, 0.74511, 0.99991, 0.99991, 0.91295, 0.90179, 0.14988, 0.76256, 0.99991,
    0.99991, 0.894, 0.99991, 0.99991, 0.98359, 0.98359, 0.0177, 0.56611, 0.99952, 0.96836, 0.894,
    0.96836, 0.96836, 0.98359, 0.98359, -0.24525, 0.45203, 0.99483, 0.92682, 0.98024, 0.92682, 0.92682,
    0.99882, 0.99882, -0.33833, 0.32999, 0.97263, 0.97658, 0.9978, 0.86897, 0.97658, 0.9978, 0.99647,
    -0.07958, 0.07075, 0.87759, 0.97658, 0.9978, 0.70868, 0.97658, 0.9978, 0.93953, -0.07958]
_AVG = [
    -0.06437, 0.35533, 0.10678, -0.25808, -0.2138, 0.23257, -0.14216, 0.3162, 0.1799, -0.2064, -0.2828,
    0.17265, -0.20999, 0.25491, 0.24041, -0.14026, -0.33199, 0.10064, -0.2631, 0.17576, 0.28408,
    -0.06429, -0.35791, 0.02158]
_POOL_DX = [
    -0.15103, 6.09391, 4.24493, 0.42519, 0.18026, -0.2997, -0.31844, -0.01873, 16.27874, 4.29747,
    -0.14868, -0.41234, -0.26367, -0.14646, 0.11721, 7.85132, -0.41234, -0.26367, -0.14646, 3.11721, 1,
    9, 0, 3, 0]


def _conv_inputs():
    x = np.arange(72, dtype="float32").reshape(1, 2, 3, 3, 4) * 0.1 - 1.0
    w = np.cos(np.arange(16, dtype="float32")).reshape(2, 1, 2, 2, 2)
    return x, w


def _pool_input():
    return np.sin(np.arange(200, dtype="float32")).reshape(1, 2, 4, 5, 5)


def test_conv3d_values_and_gradients_match_paddle_in_both_layouts():
    xs, ws = _conv_inputs()
    kw = dict(stride=[1, 2, 1], padding=[1, 0, 0, 1, 1, 0], dilation=[1, 1, 2], groups=2)
    for fmt in ("NCDHW", "NDHWC"):
        x = rt.to_tensor(xs if fmt == "NCDHW" else xs.transpose(0, 2, 3, 4, 1), stop_gradient=False)
        w = rt.to_tensor(ws, stop_gradient=False)
        y = F.conv3d(x, w, data_format=fmt, **kw)
        (y * y * 0.5).sum().backward()
        got = y.numpy() if fmt == "NCDHW" else y.numpy().transpose(0, 4, 1, 2, 3)
        assert got.shape == (1, 2, 3, 2, 3)
        np.testing.assert_allclose(got.ravel(), _CONV_Y, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(w.grad.numpy().ravel(), _CONV_DW, rtol=1e-4, atol=1e-3)
        dx = x.grad.numpy() if fmt == "NCDHW" else x.grad.numpy().transpose(0, 4, 1, 2, 3)
        np.testing.assert_allclose(dx.sum(axis=(0, 1)).ravel(), _CONV_DX, rtol=1e-4, atol=1e-3)


def test_pool3d_values_and_gradients_match_paddle():
    for fmt in ("NCDHW", "NDHWC"):
        xs = _pool_input() if fmt == "NCDHW" else _pool_input().transpose(0, 2, 3, 4, 1)
        x = rt.to_tensor(xs, stop_gradient=False)
        m = nn.MaxPool3D(3, stride=2, padding=1, ceil_mode=True, data_format=fmt)(x)
        a = nn.AvgPool3D([2, 3, 3], stride=2, padding=[0, 1, 1, 0, 1, 1], exclusive=False, data_format=fmt)(x)
        (m.sum() + (a * a).sum()).backward()
        back = (lambda t: t) if fmt == "NCDHW" else (lambda t: t.transpose(0, 4, 1, 2, 3))
        np.testing.assert_allclose(back(m.numpy()).ravel(), _MAX, atol=1e-5)
        np.testing.assert_allclose(back(a.numpy()).ravel(), _AVG, atol=1e-5)
        np.testing.assert_allclose(back(x.grad.numpy()).sum(axis=(0, 1, 2)).ravel(), _POOL_DX, atol=1e-4)


class _Net3D(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3D(2, 4, 3, stride=[1, 2, 2], padding=1)
        self.bn = nn.BatchNorm3D(4)
        self.pool = nn.MaxPool3D(2, ceil_mode=True)
        self.conv2 = nn.Conv3D(4, 4, 2, padding="SAME", groups=2, data_format="NDHWC")
        self.norm = nn.InstanceNorm3D(4)
        self.avg = nn.AvgPool3D(2, padding=[0, 1, 0, 1, 0, 1], exclusive=False)
        self.norm1 = nn.InstanceNorm1D(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = self.pool(F.relu(self.bn(self.conv(x))))
        h = self.conv2(h.transpose([0, 2, 3, 4, 1])).transpose([0, 4, 1, 2, 3])
        if h.mean() > 0:  # a tensor condition: a cond op
            h = self.norm(h)
        h = self.avg(h)
        h = self.norm1(h.reshape([h.shape[0], 4, -1]))
        return self.fc(h.mean(axis=2))


def test_3d_network_converted_matches_eager_with_gradients():
    rng = np.random.default_rng(0)
    eager = _Net3D()
    conv = _Net3D()
    conv.set_state_dict(eager.state_dict())
    static = dy2st.to_static(conv)
    for mode in ("train", "eval"):
        getattr(eager, mode)()
        getattr(static, mode)()
        for n in (2, 3):
            x = rng.standard_normal((n, 2, 4, 6, 5)).astype("float32")
            outs = []
            for net in (eager, static):
                out = net(rt.to_tensor(x))
                (out * out).sum().backward()
                # a parameter of the branch not taken has no gradient eagerly, a zero one through a cond op
                outs.append((out.numpy(), {k: np.zeros(p.shape) if p.grad is None else p.grad.numpy().copy()
                                           for k, p in net.named_parameters()}))
                net.clear_gradients()
            np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-5, atol=1e-6)
            for k, g in outs[0][1].items():
                np.testing.assert_allclose(outs[1][1][k], g, rtol=1e-4, atol=1e-6, err_msg=k)
    np.testing.assert_allclose(conv.bn._mean.numpy(), eager.bn._mean.numpy(), rtol=1e-6)
    ops = {op.type for b in static.forward.concrete_program.main_program.blocks for op in b.ops}
    assert {"conv3d", "max_pool3d", "avg_pool3d"} <= ops


def test_avg_pool2d_not_exclusive_divides_like_paddle():
    # Paddle 3.3: padding counts in the divisor, a ceil_mode extension does not, and an after-padding
    # counts only as far as the before-padding reaches (6x6 ones; 5x5 ones with pads [0, 1, 1, 0]).
    y = F.avg_pool2d(rt.ones([1, 1, 6, 6]), 3, 2, 1, ceil_mode=True, exclusive=False).numpy()[0, 0]
    edge = [4 / 9, 2 / 3, 2 / 3, 1 / 3]
    np.testing.assert_allclose(y[0], edge, rtol=1e-6)
    np.testing.assert_allclose(y[:, 3], [1 / 3, 0.5, 0.5, 0.25], rtol=1e-6)
    y = F.avg_pool2d(rt.ones([1, 1, 5, 5]), 2, 2, [0, 1, 1, 0], exclusive=False).numpy()[0, 0]
    np.testing.assert_allclose(y, [[0.5, 1, 1]] * 3, rtol=1e-6)


def test_onnx_pools_divide_as_the_kernels():
    import pytest
    ort = pytest.importorskip("onnxruntime")
    from runtime.static.onnx.export import build_model

    cases = [([1, 1, 5, 5], F.avg_pool2d, dict(kernel_size=2, stride=2, padding=[0, 1, 1, 0], exclusive=False)),
             ([1, 2, 4, 6, 5], F.avg_pool3d, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, exclusive=False)),
             ([1, 2, 4, 6, 5], F.max_pool3d, dict(kernel_size=[2, 3, 2], stride=2, padding=[0, 1, 1, 0, 1, 1]))]
    for shape, fn, kw in cases:
        main = rt.static.Program()
        with rt.static.program_guard(main):
            y = fn(rt.static.data("x", shape, "float32"), **kw)
        sess = ort.InferenceSession(build_model(main, ["x"], [y.name]).SerializeToString(),
                                    providers=["CPUExecutionProvider"])
        xv = np.random.default_rng(0).standard_normal(shape).astype("float32")
        np.testing.assert_allclose(sess.run(None, {"x": xv})[0], fn(rt.to_tensor(xv), **kw).numpy(), atol=1e-6)
