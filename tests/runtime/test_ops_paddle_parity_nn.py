"""Paddle's extra activations, losses and vision functions and layers (``runtime/ops/nn_*_extra.py``,
``nn_vision.py``, ``nn_conv_transpose.py``): the cases the registry rows (op_cases_nn.py) leave out,
checked against numpy or against values Paddle 3.3 gives (hard-coded); a converted model using many
of them against eager, values and gradients; Paddle's parameter names; the errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.nn import functional as F

_rng = np.random.default_rng(11)


def T(*shape, stop_gradient=True):
    return rt.Tensor(_rng.standard_normal(shape).astype("float32"), stop_gradient=stop_gradient)


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), want, rtol=tol, atol=tol)


# -- values Paddle gives that a plain formula would miss -----------------------------------------------
def test_interpolate_indices_are_paddles():
    row = rt.to_tensor(np.arange(7, dtype="float32").reshape(1, 1, 1, 7))
    nearest = {0.6: [0, 1, 3, 5], 0.7: [0, 1, 2, 4], 1.3: [0, 0, 1, 2, 3, 3, 4, 5, 6]}  # float32 ratios, as Paddle
    for s, want in nearest.items():
        _close(F.interpolate(row, scale_factor=[1, s]), np.array(want, "float32").reshape(1, 1, 1, -1))
    _close(F.interpolate(row, scale_factor=[1, 0.6], mode="bilinear").numpy().ravel(),
           [0.3333333, 2.0, 3.6666665, 5.333333])
    grid = rt.to_tensor(np.arange(35, dtype="float32").reshape(1, 1, 5, 7))
    _close(F.interpolate(grid, size=[2, 3], mode="bilinear"), [[[[5.9166665, 8.25, 10.583333],
                                                                   [23.416664, 25.75, 28.08333]]]])
    _close(F.interpolate(grid, size=[1, 1], mode="bilinear"), [[[[0.0]]]])  # one output: ratio 0, as Paddle
    _close(F.interpolate(grid, scale_factor=[1.1, 2]).numpy()[0, 0, :, 0], [0, 0, 7, 14, 21])
    _close(F.interpolate(grid, scale_factor=1.1, mode="bilinear"), grid.numpy())  # same size: a copy
    _close(F.interpolate(grid, size=[3, 4], mode="bilinear", align_corners=True).numpy()[0, 0, :, 0], [0, 14, 28])
    _close(F.interpolate(grid, scale_factor=2, mode="bilinear", align_mode=1).numpy()[0, 0, 0, :4], [0, 0.5, 1, 1.5])
    assert F.upsample(grid, scale_factor=2).shape == [1, 1, 10, 14]


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    x, w = T(2, 4, 5, 6), T(4, 3, 3, 3)  # groups=2: filter [in, out / groups, kh, kw]
    attrs = dict(stride=[2, 1], padding=[1, 0], dilation=[1, 2], groups=2)
    y = F.conv2d_transpose(x, w, output_size=[10, 10], **attrs)
    assert y.shape == [2, 6, 10, 10]
    # <conv_t(x), z> == <x, conv(z)>: the transpose's defining identity, for any z
    z = T(2, 6, 10, 10)
    lhs = float((y * z).sum())
    rhs = float((x * F.conv2d(z, w, **attrs)).sum())
    assert abs(lhs - rhs) < 1e-3 * max(1.0, abs(lhs))
    with pytest.raises(ValueError, match="output_padding"):
        F.conv2d_transpose(x, w, output_size=[8, 10], **attrs)


def test_losses_reductions_and_options():
    logp = rt.to_tensor(np.log(np.full((3, 4), 0.25, "float32")) + np.arange(4, dtype="float32"))
    label = rt.to_tensor(np.array([1, -100, 3]))
    # ignored labels count for nothing, in the sum and in the mean's weights
    _close(F.nll_loss(logp, label, reduction="none"), -logp.numpy()[[0, 1, 2], [1, 0, 3]] * [1, 0, 1])
    _close(F.nll_loss(logp, label), -(logp.numpy()[0, 1] + logp.numpy()[2, 3]) / 2)
    weight = rt.to_tensor(np.array([1, 2, 3, 4], "float32"))
    _close(F.nll_loss(logp, label, weight=weight), -(2 * logp.numpy()[0, 1] + 4 * logp.numpy()[2, 3]) / 6)
    x, y = T(3, 4), rt.to_tensor(np.array([[0.0, 0.5, 1.0, 0.2]] * 3, "float32"))
    kl = np.where(y.numpy() > 0, y.numpy() * (np.log(np.maximum(y.numpy(), 1e-30)) - x.numpy()), 0)
    for red, want in (("none", kl), ("sum", kl.sum()), ("mean", kl.mean()), ("batchmean", kl.sum() / 3)):
        _close(F.kl_div(x, y, reduction=red), want)
    _close(F.kl_div(x, y, log_target=True, reduction="sum"), (np.exp(y.numpy()) * (y.numpy() - x.numpy())).sum())
    p = rt.to_tensor(np.array([0.0, 1.0, 0.5], "float32"))
    _close(F.binary_cross_entropy(p, rt.to_tensor(np.array([1.0, 0.0, 1.0], "float32")), reduction="none"),
           [100.0, 100.0, np.log(2)])  # each log clamped at -100, as Paddle
    d = x.numpy() - y.numpy()
    _close(F.smooth_l1_loss(x, y, delta=0.5, is_huber=False),
           np.where(np.abs(d) < 0.5, d * d, np.abs(d) - 0.25).mean())
    norm = rt.to_tensor(np.array([4.0], "float32"))
    _close(F.sigmoid_focal_loss(x, y, normalizer=norm), F.sigmoid_focal_loss(x, y).numpy() / 4)
    loss, soft = F.softmax_with_cross_entropy(x, rt.to_tensor(np.array([[1], [0], [3]])), return_softmax=True)
    assert loss.shape == [3, 1]
    _close(soft, F.softmax(x))
    _close(F.label_smooth(y, prior_dist=rt.to_tensor(np.full((1, 4), 0.5, "float32")), epsilon=0.2),
           0.8 * y.numpy() + 0.1)
    a, b = T(4, 5), T(4, 5)
    _close(F.pairwise_distance(a, b, p=float("inf")), np.abs(a.numpy() - b.numpy() + 1e-6).max(-1))
    _close(F.pairwise_distance(a, b, p=3.0, keepdim=True),
           (np.abs(a.numpy() - b.numpy() + 1e-6) ** 3).sum(-1, keepdims=True) ** (1 / 3), 1e-4)


def test_vision_functions_beyond_the_rows():
    x = T(2, 3, 5, 7)
    # uneven adaptive bins (Paddle's floor/ceil bounds)
    bins = [(0, 2), (1, 4), (3, 5)]
    want = np.stack([x.numpy()[:, :, a:b].mean(2) for a, b in bins], 2)
    _close(F.adaptive_avg_pool2d(x, [3, 7]), want)
    _close(F.adaptive_max_pool2d(x, [3, 7]), np.stack([x.numpy()[:, :, a:b].max(2) for a, b in bins], 2))
    w, b = T(3), T(3)
    xn = x.numpy()
    _close(F.instance_norm(x, weight=w, bias=b), ((xn - xn.mean((2, 3), keepdims=True))
                                                   / np.sqrt(xn.var((2, 3), keepdims=True) + 1e-5))
           * w.numpy()[:, None, None] + b.numpy()[:, None, None], 1e-4)
    _close(F.prelu(x, rt.to_tensor(np.full([7], 0.1, "float32")), data_format="NHWC"), np.where(xn > 0, xn, 0.1 * xn))
    assert F.unfold(x, 3, strides=2, paddings=[1, 2, 0, 1], dilations=[1, 2]).shape == [2, 27, 6]
    _close(F.conv1d(T(2, 3, 8), T(4, 3, 3), padding="same").shape, [2, 4, 8])
    assert F.max_pool1d(T(2, 3, 9), 3, stride=2, ceil_mode=True).shape == [2, 3, 4]
    assert F.avg_pool1d(T(2, 3, 9), 3, padding=1, exclusive=False).shape == [2, 3, 3]
    rt.seed(0)
    dropped = F.dropout2d(rt.ones([8, 16, 2, 2]), p=0.5).numpy()
    per_channel = dropped.reshape(8, 16, 4)
    assert set(np.unique(per_channel)) <= {0.0, 2.0} and (per_channel.min(-1) == per_channel.max(-1)).all()
    assert 0 < (per_channel[..., 0] == 0).mean() < 1


def test_errors_name_what_is_wrong():
    x = T(2, 4, 3, 3)
    with pytest.raises(ValueError, match="even"):
        F.glu(T(3, 5))
    with pytest.raises(ValueError, match="reduction"):
        F.l1_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match="NCHW"):
        F.interpolate(x, scale_factor=2, data_format="NCDHW")
    with pytest.raises(ValueError, match="trilinear"):  # Paddle's: 'trilinear' takes a 5-D input
        F.interpolate(x, scale_factor=2, mode="trilinear")
    with pytest.raises(ValueError, match="area"):
        F.interpolate(x, scale_factor=2, mode="area")
    with pytest.raises(ValueError, match="exactly one"):
        F.interpolate(x, size=[4, 4], scale_factor=2)
    with pytest.raises(ValueError, match="divisible"):
        F.group_norm(x, 3)
    with pytest.raises(ValueError, match="channels"):
        F.prelu(x, rt.ones([3]))
    with pytest.raises(ValueError, match="divisible"):
        F.pixel_shuffle(x, 3)
    with pytest.raises(ValueError, match="False together"):
        rt.nn.InstanceNorm2D(4, weight_attr=False)


def test_layers_have_paddles_parameters():
    shapes = {name: {k: list(v.shape) for k, v in layer.state_dict().items()} for name, layer in (
        ("prelu", rt.nn.PReLU(3, init=0.1)), ("group", rt.nn.GroupNorm(2, 4)), ("inst", rt.nn.InstanceNorm2D(3)),
        ("conv1d", rt.nn.Conv1D(3, 4, 3)), ("convt", rt.nn.Conv2DTranspose(4, 6, 3, groups=2)))}
    assert shapes == {"prelu": {"_weight": [3]}, "group": {"weight": [4], "bias": [4]},
                      "inst": {"scale": [3], "bias": [3]}, "conv1d": {"weight": [4, 3, 3], "bias": [4]},
                      "convt": {"weight": [4, 3, 3, 3], "bias": [6]}}
    _close(rt.nn.PReLU(3, init=0.1)._weight, [0.1] * 3)
    x = T(2, 4, 4, 4)
    layer = rt.nn.Dropout2D(0.5)
    layer.eval()
    assert layer(x) is x


# -- a converted model made of them: values and gradients as eager ------------------------------------------
class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = rt.nn.Conv2D(3, 8, 3, padding=1)
        self.act = rt.nn.PReLU(8)
        self.norm = rt.nn.GroupNorm(2, 8)
        self.up = rt.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.convt = rt.nn.Conv2DTranspose(8, 4, 3, stride=2, padding=1)
        self.inorm = rt.nn.InstanceNorm2D(4)
        self.shuffle = rt.nn.PixelShuffle(2)
        self.pool = rt.nn.AdaptiveMaxPool2D([3, 3])
        self.conv1 = rt.nn.Conv1D(1, 2, 3, padding=1)
        self.head = rt.nn.Linear(18, 5)

    def forward(self, x):
        y = self.norm(self.act(self.conv(x)))
        y = F.hardswish(self.up(y)) + F.interpolate(y, scale_factor=2)
        y = F.selu(self.inorm(self.convt(y)))
        y = self.pool(F.relu6(self.shuffle(y)))                   # [N, 1, 3, 3]
        y = F.glu(self.conv1(F.flatten(y, 2)), axis=1)          # [N, 1, 9]
        y = F.flatten(F.unfold(rt.concat([y, y], axis=1).reshape([-1, 2, 3, 3]), 2), 1)
        return self.head(F.softsign(y[:, :18]))


def _loss(out, target, labels):
    logp = F.log_softmax(out)
    return (F.nll_loss(logp, labels) + F.smooth_l1_loss(out, target) + F.kl_div(logp, F.softmax(target))
            + F.l1_loss(out, target) + F.cosine_similarity(out, target).mean())


def test_converted_model_matches_eager_with_gradients():
    rt.seed(3)
    eager = Net()
    static = Net()
    static.set_state_dict(eager.state_dict())
    step = dy2st.to_static(lambda x, t, lab: _loss(static(x), t, lab))
    for n in (2, 3):  # two batch sizes through one converted function
        x, t = T(n, 3, 5, 5), T(n, 5)
        lab = rt.to_tensor(_rng.integers(0, 5, n))
        want = _loss(eager(x), t, lab)
        got = step(x, t, lab)
        assert "conv2d_transpose" in {op.type for op in step.main_program.global_block().ops}  # a real Program
        _close(got, want.numpy(), 1e-4)
        for net in (eager, static):
            net.clear_gradients()
        want.backward()
        step(x, t, lab).backward()
        for (name, pe), ps in zip(eager.named_parameters(), static.parameters()):
            np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), rtol=1e-3, atol=1e-5, err_msg=name)
