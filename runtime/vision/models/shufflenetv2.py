"""ShuffleNetV2 (x0.25 ... x2.0, and the swish variant) as ``paddle.vision.models``: the same layers
under the same names (``_conv1``, blocks ``2_1``...``4_4``, ``_last_conv``, ``_fc``)."""
from ... import nn
from ...nn import functional as F
from ...ops.shape import concat, split
from ._utils import ConvNormActivation, refuse_pretrained

# output channels of the stem, the three stages and the last 1x1 conv, per scale
_STAGE_OUT = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512], 0.5: [24, 48, 96, 192, 1024],
              1.0: [24, 116, 232, 464, 1024], 1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}
_STAGE_REPEATS = [4, 8, 4]


def create_activation_layer(act):
    """The activation layer class of ``'relu'``, ``'swish'`` or ``None``."""
    acts = {"swish": nn.Swish, "relu": nn.ReLU, None: None}
    if act not in acts:
        raise RuntimeError(f"The activation function is not supported: {act}")
    return acts[act]


def _cna(cin, cout, k, stride, groups, act):
    return ConvNormActivation(cin, cout, kernel_size=k, stride=stride, padding=(k - 1) // 2, groups=groups,
                              activation_layer=act)


class InvertedResidual(nn.Layer):
    """Splits the channels in halves; the second goes through 1x1, 3x3 depthwise, 1x1; the halves
    are concatenated and shuffled in two groups."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _cna(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _cna(half, half, 3, stride, half, None)
        self._conv_linear = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = split(inputs, num_or_sections=[half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return F.channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The down-sampling block: both branches see the whole input (strided depthwise convs), their
    outputs are concatenated and shuffled in two groups."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _cna(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _cna(half, half, 3, stride, half, None)
        self._conv_linear_2 = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return F.channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """A strided 3x3 stem and max pool, three stages of shuffle blocks (4, 8, 4), a 1x1 conv, global
    average pool (``with_pool``) and a Linear classifier (none when ``num_classes <= 0``)."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _STAGE_OUT:
            raise NotImplementedError(f"This scale size:[{scale}] is not implemented!")
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        activation_layer = create_activation_layer(act)
        out = _STAGE_OUT[scale]
        self._conv1 = _cna(3, out[0], 3, 2, 1, activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        # a plain list (Paddle's ``_block_list``): the blocks are registered as "<stage>_<index>"
        self._block_list = []
        for stage_id, num_repeat in enumerate(_STAGE_REPEATS):
            for i in range(num_repeat):
                if i == 0:
                    block = InvertedResidualDS(out[stage_id], out[stage_id + 1], 2, activation_layer)
                else:
                    block = InvertedResidual(out[stage_id + 1], out[stage_id + 1], 1, activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage_id + 2}_{i + 1}", block))
        self._last_conv = _cna(out[-2], out[-1], 1, 1, 1, activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = out[-1]
            self._fc = nn.Linear(out[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for inv in self._block_list:
            x = inv(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(x.flatten(1))
        return x


def _shufflenet_v2(name, scale, pretrained, **kwargs):
    refuse_pretrained(name, pretrained)
    return ShuffleNetV2(scale=scale, **kwargs)


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 0.25."""
    return _shufflenet_v2("shufflenet_v2_x0_25", 0.25, pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 0.33."""
    return _shufflenet_v2("shufflenet_v2_x0_33", 0.33, pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 0.5."""
    return _shufflenet_v2("shufflenet_v2_x0_5", 0.5, pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 1.0."""
    return _shufflenet_v2("shufflenet_v2_x1_0", 1.0, pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 1.5."""
    return _shufflenet_v2("shufflenet_v2_x1_5", 1.5, pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 2.0."""
    return _shufflenet_v2("shufflenet_v2_x2_0", 2.0, pretrained, **kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNetV2 with scale 1.0 and swish activations."""
    return _shufflenet_v2("shufflenet_v2_swish", 1.0, pretrained, act="swish", **kwargs)
