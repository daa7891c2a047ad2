"""ResNet-18/34/50/101/152 (and wide / ResNeXt variants through ``width``/``groups``), as
``paddle.vision.models``: the same layers under the same names."""
from ... import nn
from ._utils import refuse_pretrained

_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


def _conv(cin, cout, k, stride=1, padding=0, groups=1, dilation=1):
    return nn.Conv2D(cin, cout, k, stride=stride, padding=padding, groups=groups, dilation=dilation,
                     bias_attr=False)


class BasicBlock(nn.Layer):
    """Two 3x3 convolutions with batch norm, plus the shortcut (``downsample`` when shapes change)."""

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if dilation > 1:
            raise NotImplementedError("BasicBlock: dilation > 1 is not supported (as in Paddle)")
        norm_layer = norm_layer or nn.BatchNorm2D
        self.conv1, self.bn1 = _conv(inplanes, planes, 3, stride, 1), norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2, self.bn2 = _conv(planes, planes, 3, 1, 1), norm_layer(planes)
        self.downsample, self.stride = downsample, stride

    def forward(self, x):
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped, strided), 1x1 expand (x4), each with batch norm, plus the shortcut."""

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1, self.bn1 = _conv(inplanes, width, 1), norm_layer(width)
        self.conv2 = _conv(width, width, 3, stride, dilation, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3, self.bn3 = _conv(width, planes * self.expansion, 1), norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample, self.stride = downsample, stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = self.downsample(x) if self.downsample is not None else x
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """``ResNet(block, depth)``: a 7x7 stem, four stages of blocks, global average pool (``with_pool``)
    and a Linear classifier (none when ``num_classes <= 0``)."""

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in _DEPTHS:
            raise ValueError(f"ResNet: depth must be one of {sorted(_DEPTHS)}, got {depth}")
        self.groups, self.base_width = groups, width
        self.num_classes, self.with_pool = num_classes, with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes, self.dilation = 64, 1
        self.conv1 = _conv(3, self.inplanes, 7, 2, 3)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        counts = _DEPTHS[depth]
        self.layer1 = self._make_layer(block, 64, counts[0])
        self.layer2 = self._make_layer(block, 128, counts[1], stride=2)
        self.layer3 = self._make_layer(block, 256, counts[2], stride=2)
        self.layer4 = self._make_layer(block, 512, counts[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(_conv(self.inplanes, planes * block.expansion, 1, stride),
                                       self._norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, self._norm_layer)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                         norm_layer=self._norm_layer) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def _resnet(name, block, depth, pretrained, **kwargs):
    refuse_pretrained(name, pretrained)
    return ResNet(block, depth, **kwargs)


def resnet18(pretrained=False, **kwargs):
    """ResNet-18 (BasicBlock)."""
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34 (BasicBlock)."""
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50 (BottleneckBlock)."""
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101 (BottleneckBlock)."""
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152 (BottleneckBlock)."""
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


# ResNeXt (``groups`` paths of ``width`` channels per bottleneck) and wide ResNet (``width`` 128)
def _variant(name, depth, groups=1, width=64):
    def build(pretrained=False, **kwargs):
        kwargs["groups"], kwargs["width"] = groups, width
        return _resnet(name, BottleneckBlock, depth, pretrained, **kwargs)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"ResNet-{depth} (BottleneckBlock) with groups={groups}, width={width}."
    return build


resnext50_32x4d = _variant("resnext50_32x4d", 50, 32, 4)
resnext50_64x4d = _variant("resnext50_64x4d", 50, 64, 4)
resnext101_32x4d = _variant("resnext101_32x4d", 101, 32, 4)
resnext101_64x4d = _variant("resnext101_64x4d", 101, 64, 4)
resnext152_32x4d = _variant("resnext152_32x4d", 152, 32, 4)
resnext152_64x4d = _variant("resnext152_64x4d", 152, 64, 4)
wide_resnet50_2 = _variant("wide_resnet50_2", 50, width=128)
wide_resnet101_2 = _variant("wide_resnet101_2", 101, width=128)
