"""SqueezeNet 1.0 and 1.1 as ``paddle.vision.models``: the same layers under the same names
(``_conv``, ``_conv1``...``_conv9``, each fire module ``_conv``/``_conv_path1``/``_conv_path2``)."""
from ... import nn
from ...nn import functional as F
from ...ops.shape import concat
from ._utils import refuse_pretrained

# (in, squeeze, expand 1x1, expand 3x3) of the eight fire modules, the same in both versions
_FIRES = [(None, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128), (256, 48, 192, 192),
          (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]


class MakeFireConv(nn.Layer):
    """A convolution followed by ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated on the channels."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """``SqueezeNet(version)``, ``version`` ``'1.0'`` (7x7 stem, 96 channels) or ``'1.1'`` (3x3 stem,
    64 channels, earlier pools).  The classifier is a 1x1 convolution, kept even when
    ``num_classes <= 0`` as in Paddle (it is then skipped in ``forward``)."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: supported versions are ['1.0', '1.1'] but input version is {version}")
        self.version, self.num_classes, self.with_pool = version, num_classes, with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, (cin, sq, e1, e3) in enumerate(_FIRES, 1):
            setattr(self, f"_conv{i}", MakeFire(cin or self._conv._out_channels, sq, e1, e3))
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        # the fire modules after which each version max-pools
        pools = (3, 7) if self.version == "1.0" else (2, 4)
        for i, fire in enumerate((self._conv1, self._conv2, self._conv3, self._conv4, self._conv5, self._conv6,
                                  self._conv7, self._conv8), 1):
            x = fire(x)
            if i in pools:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x)).squeeze(axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0."""
    refuse_pretrained("squeezenet1_0", pretrained)
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1."""
    refuse_pretrained("squeezenet1_1", pretrained)
    return SqueezeNet("1.1", **kwargs)
