"""Paddle's test_tsm (Temporal Shift Module video classifier), rewritten and shrunk (2 segments of
16x16 frames, bottleneck blocks 4 and 8 wide): `F.temporal_shift` in every block, the legacy
`nn.BatchNorm(act=...)`, the video reshaped with `[-1] + self.reshape_list` and
`[-1, self.seg_num, y.shape[1]]`, functional dropout, a bias `ParamAttr(learning_rate=2.0,
regularizer=L1Decay())`, `Momentum` with a `PiecewiseDecay` rate and `L2Decay`, and
`paddle.static.accuracy` top-1/top-5 on the softmax scores. Converted training equals eager bitwise."""
import math

import numpy as np

import dy2st
import runtime as rt
from runtime.nn import BatchNorm, Linear

SEG_NUM, SIZE, CLASSES, CHANNELS = 2, 16, 5, 32


class ConvBNLayer(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, act=None):
        super().__init__()
        self._conv = rt.nn.Conv2D(in_channels=num_channels, out_channels=num_filters, kernel_size=filter_size,
                                  stride=stride, padding=(filter_size - 1) // 2, groups=1,
                                  weight_attr=rt.ParamAttr(), bias_attr=False)
        self._batch_norm = BatchNorm(num_filters, act=act, param_attr=rt.ParamAttr(), bias_attr=rt.ParamAttr())

    def forward(self, inputs):
        return self._batch_norm(self._conv(inputs))


class BottleneckBlock(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, stride, shortcut=True, seg_num=8):
        super().__init__()
        self.conv0 = ConvBNLayer(num_channels, num_filters, 1, act="relu")
        self.conv1 = ConvBNLayer(num_filters, num_filters, 3, stride=stride, act="relu")
        self.conv2 = ConvBNLayer(num_filters, num_filters * 4, 1, act=None)
        if not shortcut:
            self.short = ConvBNLayer(num_channels, num_filters * 4, 1, stride=stride)
        self.shortcut = shortcut
        self.seg_num = seg_num
        self._num_channels_out = int(num_filters * 4)

    def forward(self, inputs):
        shifts = rt.nn.functional.temporal_shift(inputs, self.seg_num, 1.0 / 8)
        y = self.conv0(shifts)
        conv2 = self.conv2(self.conv1(y))
        if self.shortcut:
            short = inputs
        else:
            short = self.short(inputs)
        return rt.nn.functional.relu(rt.add(x=short, y=conv2))


class TSM_ResNet(rt.nn.Layer):
    def __init__(self, name_scope):
        super().__init__(name_scope)
        self.seg_num = SEG_NUM
        self.reshape_list = [3, SIZE, SIZE]
        depth, num_filters = [1, 2], [4, 8]
        self.conv = ConvBNLayer(3, 8, 7, stride=2, act="relu")
        self.pool2d_max = rt.nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.bottleneck_block_list = []
        num_channels = 8
        for block in range(len(depth)):
            shortcut = False
            for i in range(depth[block]):
                bottleneck_block = self.add_sublayer("bb_%d_%d" % (block, i), BottleneckBlock(
                    num_channels, num_filters[block], stride=2 if i == 0 and block != 0 else 1,
                    shortcut=shortcut, seg_num=self.seg_num))
                num_channels = int(bottleneck_block._num_channels_out)
                self.bottleneck_block_list.append(bottleneck_block)
                shortcut = True
        self.pool2d_avg = rt.nn.AdaptiveAvgPool2D(1)
        stdv = 1.0 / math.sqrt(CHANNELS * 1.0)
        self.out = Linear(CHANNELS, CLASSES,
                          weight_attr=rt.ParamAttr(initializer=rt.nn.initializer.Uniform(-stdv, stdv)),
                          bias_attr=rt.ParamAttr(learning_rate=2.0, regularizer=rt.regularizer.L1Decay()))

    def forward(self, inputs):
        y = rt.reshape(inputs, [-1] + self.reshape_list)
        y = self.pool2d_max(self.conv(y))
        for bottleneck_block in self.bottleneck_block_list:
            y = bottleneck_block(y)
        y = self.pool2d_avg(y)
        y = rt.nn.functional.dropout(y, p=0.5)
        y = rt.reshape(y, [-1, self.seg_num, y.shape[1]])
        y = rt.mean(y, axis=1)
        y = rt.reshape(y, shape=[-1, CHANNELS])
        return rt.nn.functional.softmax(self.out(y))


def _train(to_static, batches):
    rt.seed(1000)
    model = TSM_ResNet("TSM")
    net = dy2st.to_static(model) if to_static else model
    opt = rt.optimizer.Momentum(
        learning_rate=rt.optimizer.lr.PiecewiseDecay(boundaries=[2], values=[0.01, 0.001]), momentum=0.9,
        weight_decay=rt.regularizer.L2Decay(1e-4), parameters=net.parameters())
    ret = []
    for x, y in batches:
        net.train()
        imgs, labels = rt.to_tensor(x), rt.to_tensor(y)
        labels.stop_gradient = True
        outputs = net(imgs)
        loss = rt.nn.functional.cross_entropy(input=outputs, label=labels, ignore_index=-1, reduction="none",
                                              use_softmax=False)
        avg_loss = rt.mean(loss)
        acc_top1 = rt.static.accuracy(input=outputs, label=labels, k=1)
        acc_top5 = rt.static.accuracy(input=outputs, label=labels, k=5)
        avg_loss.backward()
        opt.minimize(avg_loss)
        net.clear_gradients()
        ret.extend([float(avg_loss), float(acc_top1), float(acc_top5)])
    return ret, model


def test_tsm_trains_converted_as_eagerly():
    rng = np.random.default_rng(0)
    batches = [(rng.normal(0.45, 0.22, [3, SEG_NUM, 3, SIZE, SIZE]).astype("float32"),
                rng.integers(0, CLASSES, [3, 1]).astype("int64")) for _ in range(3)]
    eager, eager_model = _train(False, batches)
    static, static_model = _train(True, batches)
    assert static == eager
    want = eager_model.state_dict()
    for k, v in static_model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), want[k].numpy(), err_msg=k)
