"""AlexNet as ``paddle.vision.models``: the same layers under the same names (``_conv1``...``_conv5``,
``_fc6``...``_fc8``) and Paddle's uniform initialisation."""
import math

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ._utils import refuse_pretrained


def _uniform(stdv):
    return nn.ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    """A convolution (ReLU when ``act == 'relu'``), then a 3x3 stride-2 max pool."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv, groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride, padding=padding,
                               groups=groups, weight_attr=_uniform(stdv), bias_attr=_uniform(stdv))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """Five convolutions (three followed by max pools) and three Linear layers with dropout (none
    when ``num_classes <= 0``); needs 224x224 inputs for the 256*6*6 classifier input."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        stdv = 1.0 / math.sqrt(192 * 3 * 3)
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, weight_attr=_uniform(stdv),
                                bias_attr=_uniform(stdv))
        stdv = 1.0 / math.sqrt(384 * 3 * 3)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, weight_attr=_uniform(stdv),
                                bias_attr=_uniform(stdv))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(256 * 6 * 6)
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, weight_attr=_uniform(stdv), bias_attr=_uniform(stdv))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            # Paddle keeps the fc6 bound for fc7 and fc8 too
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform(stdv), bias_attr=_uniform(stdv))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform(stdv), bias_attr=_uniform(stdv))

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = self._fc6(self._drop1(x.flatten(1)))
            x = self._fc7(self._drop2(F.relu(x)))
            x = self._fc8(F.relu(x))
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet."""
    refuse_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
