"""Paddle's test_cycle_gan, rewritten and shrunk (16x16 images, 4-channel-wide generators with one
residual block, two training steps): reflect-padded convolutions with `nn.Pad2D` layers built inside
`forward` (they hold no parameters), legacy `nn.BatchNorm(use_global_stats=True,
trainable_statistics=True)`, `Conv2DTranspose` followed by a constant `Pad2D([0, 1, 0, 1])`, three Adam
optimizers over parameter subsets of one converted model, and the discriminators converted as bound
methods (`to_static(model.discriminatorA)`, re-wrapped each step as Paddle's test does). Converted
training equals eager bitwise."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base
from runtime.nn import BatchNorm

lambda_A = lambda_B = 10.0
lambda_identity = 0.5
IMAGE_SIZE, W, NB = 16, 4, 1


def _normal(mean, std):
    return base.ParamAttr(initializer=rt.nn.initializer.Normal(mean, std))


def _bias(use_bias):
    return base.ParamAttr(initializer=rt.nn.initializer.Constant(0.0)) if use_bias else False


def _bn(num_filters):
    return BatchNorm(use_global_stats=True, num_channels=num_filters, param_attr=_normal(1.0, 0.02),
                     bias_attr=base.ParamAttr(initializer=rt.nn.initializer.Constant(0.0)),
                     trainable_statistics=True)


class conv2d(rt.nn.Layer):
    def __init__(self, num_channels, num_filters=64, filter_size=7, stride=1, stddev=0.02, padding=0,
                 norm=True, relu=True, relufactor=0.0, use_bias=False):
        super().__init__()
        self.conv = rt.nn.Conv2D(in_channels=num_channels, out_channels=num_filters, kernel_size=filter_size,
                                 stride=stride, padding=padding, weight_attr=_normal(0.0, stddev),
                                 bias_attr=_bias(use_bias))
        if norm:
            self.bn = _bn(num_filters)
        self.relufactor, self.norm, self.relu = relufactor, norm, relu

    def forward(self, inputs):
        conv = self.conv(inputs)
        if self.norm:
            conv = self.bn(conv)
        if self.relu:
            conv = rt.nn.functional.leaky_relu(conv, self.relufactor)
        return conv


class DeConv2D(rt.nn.Layer):
    def __init__(self, num_channels, num_filters=64, filter_size=7, stride=1, stddev=0.02, padding=(0, 0),
                 outpadding=(0, 0, 0, 0), relu=True, norm=True, relufactor=0.0, use_bias=False):
        super().__init__()
        self._deconv = rt.nn.Conv2DTranspose(num_channels, num_filters, filter_size, stride=stride,
                                             padding=list(padding), weight_attr=_normal(0.0, stddev),
                                             bias_attr=_bias(use_bias))
        if norm:
            self.bn = _bn(num_filters)
        self.outpadding, self.relufactor, self.norm, self.relu = list(outpadding), relufactor, norm, relu

    def forward(self, inputs):
        conv = self._deconv(inputs)
        tmp_pad = rt.nn.Pad2D(padding=self.outpadding, mode="constant", value=0.0)
        conv = tmp_pad(conv)
        if self.norm:
            conv = self.bn(conv)
        if self.relu:
            conv = rt.nn.functional.leaky_relu(conv, self.relufactor)
        return conv


class build_resnet_block(rt.nn.Layer):
    def __init__(self, dim):
        super().__init__()
        self.conv0 = conv2d(dim, dim, 3, 1, 0.02)
        self.conv1 = conv2d(dim, dim, 3, 1, 0.02, relu=False)

    def forward(self, inputs):
        pad1 = rt.nn.Pad2D([1, 1, 1, 1], mode="reflect")
        out_res = self.conv0(pad1(inputs))
        pad2 = rt.nn.Pad2D([1, 1, 1, 1], mode="reflect")
        out_res = self.conv1(pad2(out_res))
        return out_res + inputs


class Generator(rt.nn.Layer):
    def __init__(self, c):
        super().__init__()
        self.conv0 = conv2d(c, W, 7, 1, padding=0)
        self.conv1 = conv2d(W, 2 * W, 3, 2, padding=1)
        self.conv2 = conv2d(2 * W, 4 * W, 3, 2, padding=1)
        self.build_resnet_block_list = []
        for i in range(NB):
            block = self.add_sublayer(f"generator_{i + 1}", build_resnet_block(4 * W))
            self.build_resnet_block_list.append(block)
        self.deconv0 = DeConv2D(4 * W, 2 * W, 3, 2, padding=[1, 1], outpadding=[0, 1, 0, 1])
        self.deconv1 = DeConv2D(2 * W, W, 3, 2, padding=[1, 1], outpadding=[0, 1, 0, 1])
        self.conv3 = conv2d(W, c, 7, 1, padding=0, relu=False, norm=False, use_bias=True)

    def forward(self, inputs):
        pad1 = rt.nn.Pad2D([3, 3, 3, 3], mode="reflect")
        y = self.conv2(self.conv1(self.conv0(pad1(inputs))))
        for block in self.build_resnet_block_list:
            y = block(y)
        y = self.deconv1(self.deconv0(y))
        pad2 = rt.nn.Pad2D([3, 3, 3, 3], mode="reflect")
        return rt.tanh(self.conv3(pad2(y)))


class Discriminator(rt.nn.Layer):
    def __init__(self, c):
        super().__init__()
        self.conv0 = conv2d(c, W, 4, 2, 0.02, 1, norm=False, use_bias=True, relufactor=0.2)
        self.conv1 = conv2d(W, 2 * W, 4, 2, 0.02, 1, relufactor=0.2)
        self.conv2 = conv2d(2 * W, 2 * W, 4, 1, 0.02, 1, relufactor=0.2)
        self.conv3 = conv2d(2 * W, 1, 4, 1, 0.02, 1, norm=False, relu=False, use_bias=True)

    def forward(self, inputs):
        return self.conv3(self.conv2(self.conv1(self.conv0(inputs))))


def _l1(a, b):
    return rt.mean(rt.abs(rt.subtract(x=a, y=b)))


class Cycle_Gan(rt.nn.Layer):
    def __init__(self, c, istrain=True):
        super().__init__()
        self.ga, self.gb = Generator(c), Generator(c)
        if istrain:
            self.da, self.db = Discriminator(c), Discriminator(c)

    def forward(self, input_A, input_B):
        fake_B, fake_A = self.ga(input_A), self.gb(input_B)
        cyc_A, cyc_B = self.gb(fake_B), self.ga(fake_A)
        cyc_A_loss = _l1(input_A, cyc_A) * lambda_A
        cyc_B_loss = _l1(input_B, cyc_B) * lambda_B
        g_A_loss = rt.mean(rt.square(self.da(fake_B) - 1))
        g_B_loss = rt.mean(rt.square(self.db(fake_A) - 1))
        idt_loss_A = _l1(input_B, self.ga(input_B)) * lambda_B * lambda_identity
        idt_loss_B = _l1(input_A, self.gb(input_A)) * lambda_A * lambda_identity
        g_loss = cyc_A_loss + cyc_B_loss + g_A_loss + g_B_loss + rt.add(idt_loss_A, idt_loss_B)
        return (fake_A, fake_B, cyc_A, cyc_B, g_A_loss, g_B_loss, idt_loss_A, idt_loss_B, cyc_A_loss, cyc_B_loss,
                g_loss)

    def discriminatorA(self, input_A, input_B):
        return self.da(input_A), self.da(input_B)

    def discriminatorB(self, input_A, input_B):
        return self.db(input_A), self.db(input_B)


def _optimizer(params):
    lr = 0.0002
    return rt.optimizer.Adam(learning_rate=rt.optimizer.lr.PiecewiseDecay(
        boundaries=[1000, 1200], values=[lr, lr * 0.8, lr * 0.6]), parameters=params, beta1=0.5)


def _reader():
    def reader():
        while True:
            yield (np.random.random((3, IMAGE_SIZE, IMAGE_SIZE)).astype("float32") - 0.5) / 0.5
    return reader


def _train(to_static, steps=2):
    np.random.seed(2020)
    rt.seed(2020)
    a_reader, b_reader = rt.batch(_reader(), 2)(), rt.batch(_reader(), 2)()
    cg = Cycle_Gan(3)
    if to_static:
        cg = dy2st.to_static(cg)
    o1 = _optimizer(cg.ga.parameters() + cg.gb.parameters())
    o2, o3 = _optimizer(cg.da.parameters()), _optimizer(cg.db.parameters())
    out = []
    for _ in range(steps):
        data_A = rt.to_tensor(np.array([next(a_reader)[0]]).astype("float32"))
        data_B = rt.to_tensor(np.array([next(b_reader)[0]]).astype("float32"))
        res = cg(data_A, data_B)
        g_loss = res[-1]
        g_loss.backward()
        o1.minimize(g_loss)
        cg.clear_gradients()
        fake_pool_B, fake_pool_A = rt.to_tensor(res[1].numpy()), rt.to_tensor(res[0].numpy())
        d_a = dy2st.to_static(cg.discriminatorA) if to_static else cg.discriminatorA
        rec_B, fake_rec_B = d_a(data_B, fake_pool_B)
        d_loss_A = rt.mean((rt.square(fake_rec_B) + rt.square(rec_B - 1)) / 2.0)
        d_loss_A.backward()
        o2.minimize(d_loss_A)
        cg.clear_gradients()
        d_b = dy2st.to_static(cg.discriminatorB) if to_static else cg.discriminatorB
        rec_A, fake_rec_A = d_b(data_A, fake_pool_A)
        d_loss_B = rt.mean((rt.square(fake_rec_A) + rt.square(rec_A - 1)) / 2.0)
        d_loss_B.backward()
        o3.minimize(d_loss_B)
        cg.clear_gradients()
        out.append([float(x) for x in (g_loss, d_loss_A, d_loss_B) + tuple(res[4:10])])
    return np.array(out), cg


@pytest.mark.slow  # about 0.7 s: four generator passes and two discriminators traced
def test_cycle_gan_trains_converted_as_eagerly():
    eager, eager_model = _train(False)
    static, static_model = _train(True)
    np.testing.assert_array_equal(static, eager)
    want = eager_model.state_dict()
    for k, v in static_model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), want[k].numpy(), err_msg=k)
