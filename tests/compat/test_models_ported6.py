"""Models from Paddle's own tutorials, ported by changing imports: PointNet (a learned 3x3 input
transform initialised through ``paddle.framework.ParamAttr`` and ``Assign``, ``nll_loss``) and the
time-series anomaly autoencoder (``Conv1D``/``Conv1DTranspose`` with ``data_format='NLC'``). Both train
converted as eagerly, bitwise, and serve the same results after ``dy2st.save``/``dy2st.load``."""
import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

from .helpers import train_same


class PointNet(nn.Layer):
    def __init__(self, num_classes=4, num_point=16):
        super().__init__()
        self.input_transform_net = nn.Sequential(nn.Conv1D(3, 16, 1), nn.BatchNorm(16), nn.ReLU(),
                                                 nn.MaxPool1D(num_point))
        self.input_fc = nn.Linear(16, 9, weight_attr=paddle.framework.ParamAttr(
            initializer=nn.initializer.Assign(paddle.zeros((16, 9)))), bias_attr=paddle.framework.ParamAttr(
            initializer=nn.initializer.Assign(paddle.reshape(paddle.eye(3), [-1]))))
        self.mlp = nn.Sequential(nn.Conv1D(3, 16, 1), nn.BatchNorm(16), nn.ReLU())
        self.fc = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Dropout(p=0.7), nn.Linear(8, num_classes),
                                nn.LogSoftmax(axis=-1))

    def forward(self, inputs):
        batchsize = inputs.shape[0]
        t_net = self.input_fc(paddle.squeeze(self.input_transform_net(inputs), axis=-1))
        t_net = paddle.reshape(t_net, [batchsize, 3, 3])
        x = paddle.transpose(paddle.matmul(paddle.transpose(inputs, (0, 2, 1)), t_net), (0, 2, 1))
        return self.fc(paddle.max(self.mlp(x), axis=-1))


def test_pointnet_tutorial_trains_like_eager_and_serves_any_batch(tmp_path):
    # paddle.framework.ParamAttr raised AttributeError.
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((2, 3, 16)).astype("float32"), rng.integers(0, 4, (2,))) for _ in range(2)]
    eager, net = train_same(PointNet, data, lambda m, x, y: F.nll_loss(m(x), y))
    eager.eval()
    net.eval()
    dy2st.save(dy2st.to_static(net, input_spec=[InputSpec([None, 3, 16], "float32")]), str(tmp_path / "pn"))
    x = paddle.to_tensor(rng.standard_normal((3, 3, 16)).astype("float32"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "pn"))(x).numpy(), eager(x).numpy())


class AutoEncoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv1D(1, 8, 7, stride=2, padding=3, data_format="NLC")
        self.conv1 = nn.Conv1D(8, 4, 7, stride=2, padding=3, data_format="NLC")
        self.convT0 = nn.Conv1DTranspose(4, 8, 7, stride=2, padding=3, output_padding=1, data_format="NLC")
        self.convT1 = nn.Conv1DTranspose(8, 1, 7, stride=2, padding=3, output_padding=1, data_format="NLC")
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = F.relu(self.conv1(self.dropout(F.relu(self.conv0(x)))))
        return self.convT1(self.dropout(F.relu(self.convT0(x))))


def test_timeseries_autoencoder_in_nlc_layout_trains_and_reconstructs_any_length(tmp_path):
    # conv1d raised NotImplementedError for data_format='NLC'; nn.Conv1DTranspose did not exist.
    rng = np.random.default_rng(1)
    data = [(rng.standard_normal((2, 16, 1)).astype("float32"),) for _ in range(2)]
    eager, net = train_same(AutoEncoder, data, lambda m, x: F.mse_loss(m(x), x))
    eager.eval()
    net.eval()
    dy2st.save(dy2st.to_static(net, input_spec=[InputSpec([None, None, 1], "float32")]), str(tmp_path / "ae"))
    loaded = dy2st.load(str(tmp_path / "ae"))
    for n in (16, 24):
        x = paddle.to_tensor(rng.standard_normal((1, n, 1)).astype("float32"))
        assert eager(x).shape == [1, n, 1]
        np.testing.assert_array_equal(loaded(x).numpy(), eager(x).numpy())
    # NLC is NCL with the last two dims swapped, for the convolution and its transpose alike
    w, b = paddle.to_tensor(rng.standard_normal((4, 2, 3)).astype("float32")), paddle.zeros([4])
    x = paddle.to_tensor(rng.standard_normal((2, 5, 4)).astype("float32"))
    np.testing.assert_array_equal(F.conv1d(x, w, b, stride=2, padding=1, groups=2, data_format="NLC").numpy(),
                                  F.conv1d(x.transpose([0, 2, 1]), w, b, stride=2, padding=1, groups=2)
                                  .transpose([0, 2, 1]).numpy())


class SNDiscriminator(nn.Layer):
    """A discriminator normalising its convolution weight with the ``nn.SpectralNorm`` layer."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 4, stride=2, padding=1)
        self.sn = nn.SpectralNorm(self.conv.weight.shape, dim=0, power_iters=2)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        h = F.leaky_relu(F.conv2d(x, self.sn(self.conv.weight), self.conv.bias, stride=2, padding=1), 0.2)
        return self.out(paddle.flatten(h, 1))


def test_spectral_norm_layer_trains_like_eager_with_paddles_fixed_power_iteration():
    # nn.SpectralNorm did not exist.
    rng = np.random.default_rng(2)
    data = [(rng.standard_normal((2, 3, 4, 4)).astype("float32"), np.ones((2, 1), "float32"))] * 2
    eager, _ = train_same(SNDiscriminator, data, lambda m, x, y: F.binary_cross_entropy_with_logits(m(x), y))
    sn = eager.sn
    assert [p.stop_gradient for p in sn.parameters()] == [True, True]
    w = eager.conv.weight.numpy().reshape(4, -1).astype("float64")
    u, v = sn.weight_u.numpy().astype("float64"), sn.weight_v.numpy().astype("float64")
    for _ in range(2):  # the vectors are Paddle's starting point at every call: never updated
        v = w.T @ u / (np.linalg.norm(w.T @ u) + 1e-12)
        u = w @ v / (np.linalg.norm(w @ v) + 1e-12)
    np.testing.assert_allclose(sn(eager.conv.weight).numpy(), eager.conv.weight.numpy() / (u @ w @ v), rtol=1e-5)
