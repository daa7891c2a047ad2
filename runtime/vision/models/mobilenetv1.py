"""MobileNetV1 as ``paddle.vision.models``: the same layers under the same names (``conv1``,
``conv2_1``...``conv6``, each a depthwise and a pointwise ConvNormActivation)."""
from ... import nn
from ._utils import ConvNormActivation, refuse_pretrained

# (sublayer name, in channels, depthwise channels, pointwise channels, groups, stride), before scaling
_BLOCKS = ([("conv2_1", 32, 32, 64, 32, 1), ("conv2_2", 64, 64, 128, 64, 2), ("conv3_1", 128, 128, 128, 128, 1),
            ("conv3_2", 128, 128, 256, 128, 2), ("conv4_1", 256, 256, 256, 256, 1),
            ("conv4_2", 256, 256, 512, 256, 2)]
           + [(f"conv5_{i}", 512, 512, 512, 512, 1) for i in range(1, 6)]
           + [("conv5_6", 512, 512, 1024, 512, 2), ("conv6", 1024, 1024, 1024, 1024, 1)])


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise (grouped) ConvNormActivation, then a 1x1 pointwise one."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(in_channels, int(out_channels1 * scale), kernel_size=3,
                                                  stride=stride, padding=1, groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(int(out_channels1 * scale), int(out_channels2 * scale),
                                                  kernel_size=1, stride=1, padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    """A strided 3x3 stem, thirteen depthwise-separable blocks, global average pool (``with_pool``)
    and a Linear classifier (none when ``num_classes <= 0``); channels are multiplied by ``scale``."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        # a plain list (Paddle's ``dwsl``): the blocks are registered under their own names instead
        self.dwsl = []
        for name, cin, c1, c2, groups, stride in _BLOCKS:
            self.dwsl.append(self.add_sublayer(name, DepthwiseSeparable(int(cin * scale), c1, c2, groups, stride,
                                                                        scale)))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for dws in self.dwsl:
            x = dws(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1 with channel multiplier ``scale``."""
    refuse_pretrained("mobilenet_v1", pretrained)
    return MobileNetV1(scale=scale, **kwargs)
