"""PaddleDetection's PP-YOLOE backbone stage ported by changing imports: a CSPResStage of RepVGG blocks
whose 1x1 branch is scaled by a trainable ``alpha`` (``if self.alpha:``, a parameter's truth, a ``cond`` op
read when the Program runs) and an effective SE layer; trained under ``to_static`` like eager, then
re-parameterised for deployment (``convert_to_deploy`` fuses each block's conv-BN branches into one conv and
deletes them, the ``hasattr(self, "conv")`` branch then taken by a new trace), served and saved."""
import numpy as np

import dy2st
import runtime as paddle
from runtime import ParamAttr, nn
from runtime.static import InputSpec
from tests.compat.port_checks import same_training as _same_training
from tests.compat.port_checks import seeded


class ConvBNLayer(nn.Layer):
    def __init__(self, ch_in, ch_out, filter_size=3, stride=1, groups=1, padding=0, act=None):
        super().__init__()
        self.conv = nn.Conv2D(ch_in, ch_out, filter_size, stride=stride, padding=padding, groups=groups, bias_attr=False)
        self.bn = nn.BatchNorm2D(ch_out, weight_attr=ParamAttr(regularizer=paddle.regularizer.L2Decay(0.0)),
                                 bias_attr=ParamAttr(regularizer=paddle.regularizer.L2Decay(0.0)))
        self.act = nn.Swish() if act == "swish" else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class RepVggBlock(nn.Layer):
    def __init__(self, ch_in, ch_out, act="relu", alpha=False):
        super().__init__()
        self.ch_in, self.ch_out = ch_in, ch_out
        self.conv1 = ConvBNLayer(ch_in, ch_out, 3, stride=1, padding=1, act=None)
        self.conv2 = ConvBNLayer(ch_in, ch_out, 1, stride=1, padding=0, act=None)
        self.act = nn.ReLU()
        if alpha:
            self.alpha = self.create_parameter(shape=[1], attr=ParamAttr(initializer=nn.initializer.Constant(value=1.)),
                                               dtype="float32")
        else:
            self.alpha = None

    def forward(self, x):
        if hasattr(self, "conv"):
            y = self.conv(x)
        else:
            if self.alpha:
                y = self.conv1(x) + self.alpha * self.conv2(x)
            else:
                y = self.conv1(x) + self.conv2(x)
        y = self.act(y)
        return y

    def convert_to_deploy(self):
        if not hasattr(self, "conv"):
            self.conv = nn.Conv2D(in_channels=self.ch_in, out_channels=self.ch_out, kernel_size=3, stride=1,
                                  padding=1, groups=1)
        kernel, bias = self.get_equivalent_kernel_bias()
        self.conv.weight.set_value(kernel)
        self.conv.bias.set_value(bias)
        self.__delattr__("conv1")
        self.__delattr__("conv2")

    def get_equivalent_kernel_bias(self):
        kernel3x3, bias3x3 = self._fuse_bn_tensor(self.conv1)
        kernel1x1, bias1x1 = self._fuse_bn_tensor(self.conv2)
        if self.alpha:
            return kernel3x3 + self.alpha * self._pad_1x1_to_3x3_tensor(kernel1x1), bias3x3 + self.alpha * bias1x1
        return kernel3x3 + self._pad_1x1_to_3x3_tensor(kernel1x1), bias3x3 + bias1x1

    def _pad_1x1_to_3x3_tensor(self, kernel1x1):
        if kernel1x1 is None:
            return 0
        return nn.functional.pad(kernel1x1, [1, 1, 1, 1])

    def _fuse_bn_tensor(self, branch):
        if branch is None:
            return 0, 0
        kernel = branch.conv.weight
        running_mean = branch.bn._mean
        running_var = branch.bn._variance
        gamma = branch.bn.weight
        beta = branch.bn.bias
        eps = branch.bn._epsilon
        std = (running_var + eps).sqrt()
        t = (gamma / std).reshape((-1, 1, 1, 1))
        return kernel * t, beta - running_mean * gamma / std


class EffectiveSELayer(nn.Layer):
    def __init__(self, channels, act="hardsigmoid"):
        super().__init__()
        self.fc = nn.Conv2D(channels, channels, kernel_size=1, padding=0)
        self.act = nn.Hardsigmoid()

    def forward(self, x):
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.fc(x_se)
        return x * self.act(x_se)


class BasicBlock(nn.Layer):
    def __init__(self, ch_in, ch_out, shortcut=True, use_alpha=False):
        super().__init__()
        self.conv1 = ConvBNLayer(ch_in, ch_out, 3, stride=1, padding=1, act="swish")
        self.conv2 = RepVggBlock(ch_out, ch_out, alpha=use_alpha)
        self.shortcut = shortcut

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        if self.shortcut:
            return paddle.add(x, y)
        return y


class CSPResStage(nn.Layer):
    def __init__(self, ch_in=4, ch_out=8, n=2, use_alpha=True):
        super().__init__()
        ch_mid = (ch_in + ch_out) // 2
        self.conv_down = ConvBNLayer(ch_in, ch_mid, 3, stride=2, padding=1, act="swish")
        self.conv1 = ConvBNLayer(ch_mid, ch_mid // 2, 1, act="swish")
        self.conv2 = ConvBNLayer(ch_mid, ch_mid // 2, 1, act="swish")
        self.blocks = nn.Sequential(*[BasicBlock(ch_mid // 2, ch_mid // 2, shortcut=True, use_alpha=use_alpha)
                                      for i in range(n)])
        self.attn = EffectiveSELayer(ch_mid)
        self.conv3 = ConvBNLayer(ch_mid, ch_out, 1, act="swish")
        self.head = nn.Linear(ch_out, 3)

    def forward(self, x):
        x = self.conv_down(x)
        y1 = self.conv1(x)
        y2 = self.blocks(self.conv2(x))
        y = paddle.concat([y1, y2], axis=1)
        y = self.attn(y)
        y = self.conv3(y)
        return self.head(y.mean([2, 3]))


SPEC = [InputSpec([None, 4, None, None])]


def _images(rng, *sizes):
    return [(rng.standard_normal((b, 4, h, h)).astype("float32"),) for b, h in sizes]


def test_csp_rep_stage_with_a_trainable_alpha_trains_like_eager_on_one_program(tmp_path):
    # `if self.alpha:` read the parameter's value while tracing: every optimizer step changed it and
    # the next call traced a new Program (one per step)
    rng = np.random.default_rng(0)
    _same_training(CSPResStage, SPEC, _images(rng, (2, 8), (3, 7), (2, 9)), lambda o, b: (o ** 2).mean(), tmp_path)


def test_rep_vgg_blocks_reparameterised_for_deployment_serve_the_fused_form(tmp_path):
    rng = np.random.default_rng(1)
    eager, net = seeded(CSPResStage(), seed=1).eval(), seeded(CSPResStage(), seed=1).eval()
    f = dy2st.to_static(net, input_spec=SPEC)
    xs = [paddle.to_tensor(x) for x, in _images(rng, (2, 8), (1, 6))]
    before = [f(x).numpy() for x in xs]
    for model in (eager, net):
        for layer in model.sublayers():
            if isinstance(layer, RepVggBlock):
                layer.convert_to_deploy()
    assert not any(hasattr(layer, "conv1") for layer in net.sublayers() if isinstance(layer, RepVggBlock))
    for x, old in zip(xs, before):
        got = f(x).numpy()
        np.testing.assert_array_equal(got, eager(x).numpy())
        np.testing.assert_allclose(got, old, rtol=1e-4, atol=1e-5)  # the fused conv computes the same map
    assert len(f.forward.program_cache) == 2  # the deploy form is its own trace
    dy2st.save(f, str(tmp_path / "deploy"))
    loaded = dy2st.load(str(tmp_path / "deploy"))
    assert not any(".conv2.conv1." in k or ".conv2.conv2." in k for k in loaded.state_dict())  # the fused blocks
    for x in xs:
        np.testing.assert_array_equal(loaded(x).numpy(), eager(x).numpy())
