"""Paddle's test_mobile_net, rewritten and shrunk (a quarter of the width, fewer blocks, 32x32
images): MobileNetV1 (depthwise-separable convs) and MobileNetV2 (inverted residuals) built from a
`ConvBNLayer` of `Conv2D(groups=...)` and the legacy `nn.BatchNorm(act=..., moving_mean_name=...)`,
whose forward takes Python flags (`if_act`, `ifshortcut`) decided while the Program is built; trained
with softmax + `cross_entropy(use_softmax=False)`, `rt.static.accuracy` top-1/top-5 and Momentum with
L2 decay. Converted training equals eager bitwise (losses, accuracies, parameters and BatchNorm
statistics), and the saved model predicts as the converted one in eval mode."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn

ParamAttr = rt.ParamAttr


class ConvBNLayer(nn.Layer):
    def __init__(self, channels, size, filters, stride, padding, groups=1, act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(channels, filters, size, stride=stride, padding=padding, groups=groups,
                               weight_attr=ParamAttr(initializer=nn.initializer.KaimingUniform(),
                                                     name=self.full_name() + "_weights"), bias_attr=False)
        bn = self.full_name() + "_bn"
        self._batch_norm = nn.BatchNorm(filters, act=act, param_attr=ParamAttr(name=bn + "_scale"),
                                        bias_attr=ParamAttr(name=bn + "_offset"),
                                        moving_mean_name=bn + "_mean", moving_variance_name=bn + "_variance")

    def forward(self, x, if_act=False):
        y = self._batch_norm(self._conv(x))
        if if_act:
            y = nn.functional.relu6(y)
        return y


class DepthwiseSeparable(nn.Layer):
    def __init__(self, channels, filters1, filters2, groups, stride):
        super().__init__()
        self._depthwise_conv = ConvBNLayer(channels, 3, filters1, stride, 1, groups=groups)
        self._pointwise_conv = ConvBNLayer(filters1, 1, filters2, 1, 0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    # (in, depthwise filters, pointwise filters, groups, stride, name) at a quarter of Paddle's width
    BLOCKS = [(8, 8, 16, 8, 1, "conv2_1"), (16, 16, 32, 16, 2, "conv2_2"), (32, 32, 32, 32, 1, "conv3_1"),
              (32, 32, 64, 32, 2, "conv3_2"), (64, 64, 128, 64, 2, "conv4_2")]

    def __init__(self, class_dim=10):
        super().__init__()
        self.conv1 = ConvBNLayer(3, 3, 8, 2, 1)
        self.dwsl = [self.add_sublayer(sublayer=DepthwiseSeparable(*b[:5]), name=b[5]) for b in self.BLOCKS]
        self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        self.out = nn.Linear(128, class_dim, weight_attr=ParamAttr(initializer=nn.initializer.KaimingUniform(),
                                                                   name=self.full_name() + "fc7_weights"),
                             bias_attr=ParamAttr(name=self.full_name() + "fc7_offset"))

    def forward(self, x):
        y = self.conv1(x)
        for block in self.dwsl:
            y = block(y)
        return self.out(rt.reshape(self.pool2d_avg(y), shape=[-1, 128]))


class InvertedResidualUnit(nn.Layer):
    def __init__(self, channels, filters_in, filters, stride, expansion):
        super().__init__()
        wide = int(round(filters_in * expansion))
        self._expand_conv = ConvBNLayer(channels, 1, wide, 1, 0, act=None)
        self._bottleneck_conv = ConvBNLayer(wide, 3, wide, stride, 1, groups=wide, act=None)
        self._linear_conv = ConvBNLayer(wide, 1, filters, 1, 0, act=None)

    def forward(self, x, ifshortcut):
        y = self._expand_conv(x, if_act=True)
        y = self._bottleneck_conv(y, if_act=True)
        y = self._linear_conv(y, if_act=False)
        if ifshortcut:
            y = rt.add(x, y)
        return y


class InvresiBlocks(nn.Layer):
    def __init__(self, in_c, t, c, n, s):
        super().__init__()
        self._first_block = InvertedResidualUnit(in_c, in_c, c, s, t)
        self._inv_blocks = [self.add_sublayer(sublayer=InvertedResidualUnit(c, c, c, 1, t), name=f"unit_{k + 1}")
                            for k in range(1, n)]

    def forward(self, x):
        y = self._first_block(x, ifshortcut=False)
        for block in self._inv_blocks:
            y = block(y, ifshortcut=True)
        return y


class MobileNetV2(nn.Layer):
    SETTINGS = [(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2)]  # (expansion, channels, repeats, stride)

    def __init__(self, class_dim=10):
        super().__init__()
        self._conv1 = ConvBNLayer(3, 3, 16, 2, 1, act=None)
        self._invl, in_c = [], 16
        for k, (t, c, n, s) in enumerate(self.SETTINGS):
            self._invl.append(self.add_sublayer(sublayer=InvresiBlocks(in_c, t, c, n, s), name=f"conv{k + 2}"))
            in_c = c
        self._out_c = 64
        self._conv9 = ConvBNLayer(in_c, 1, self._out_c, 1, 0, act=None)
        self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        self._fc = nn.Linear(self._out_c, class_dim, weight_attr=ParamAttr(name=self.full_name() + "fc10_weights"),
                             bias_attr=ParamAttr(name=self.full_name() + "fc10_offset"))

    def forward(self, x):
        y = self._conv1(x, if_act=True)
        for blocks in self._invl:
            y = blocks(y)
        y = self._conv9(y, if_act=True)
        return self._fc(rt.reshape(self._pool2d_avg(y), shape=[-1, self._out_c]))


def _data():
    rng = np.random.RandomState(2020)
    return [(rng.random_sample([2, 3, 32, 32]).astype("float32"), rng.randint(0, 10, [2, 1]).astype("int64"))
            for _ in range(2)]


def _train(cls, convert):
    rt.seed(2020)
    net = cls()
    run = dy2st.to_static(net) if convert else net
    opt = rt.optimizer.Momentum(learning_rate=0.001, momentum=0.99, weight_decay=rt.regularizer.L2Decay(0.1),
                                parameters=net.parameters())
    seen = []
    net.train()
    for img, label in _data():
        out = run(rt.to_tensor(img))
        label = rt.to_tensor(label)
        loss = rt.mean(nn.functional.cross_entropy(input=nn.functional.softmax(out), label=label,
                                                   reduction="none", use_softmax=False))
        top1 = rt.static.accuracy(input=out, label=label, k=1)
        top5 = rt.static.accuracy(input=out, label=label, k=5)
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
        seen.append((float(loss), float(top1), float(top5)))
    return net, run, seen


@pytest.mark.parametrize("cls", [MobileNetV1, MobileNetV2])
def test_training_matches_eager(cls, tmp_path):
    eager_net, _, eager_seen = _train(cls, False)
    net, static, seen = _train(cls, True)
    assert seen == eager_seen
    want = [v.numpy() for v in eager_net.state_dict().values()]
    got = [v.numpy() for v in net.state_dict().values()]  # full_name()s differ: compare in order
    assert len(got) == len(want)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(b, a)
    if cls is MobileNetV1:
        static.eval()
        x = rt.to_tensor(_data()[0][0])
        path = os.path.join(tmp_path, "mobilenet")
        dy2st.save(static, path, input_spec=[rt.static.InputSpec([None, 3, 32, 32], "float32")])
        np.testing.assert_array_equal(dy2st.load(path)(x).numpy(), static(x).numpy())
