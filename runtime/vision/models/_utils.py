"""Helpers shared by the model families: Paddle's ``ConvNormActivation`` block, its channel
rounding rule, and the refusal of ``pretrained=True``."""
from ... import nn


def refuse_pretrained(name, pretrained):
    """Weights are never downloaded (no network is assumed and a converter must not fetch files)."""
    if pretrained:
        raise ValueError(f"{name}(pretrained=True): pretrained weights are not downloaded by this runtime; build "
                         f"{name}() and load a saved state dict with set_state_dict(rt.load(path))")


def make_divisible(v, divisor=8, min_value=None):
    """Round ``v`` to the nearest multiple of ``divisor`` (at least ``min_value``), never more than 10%
    below ``v``: MobileNet's channel rounding, which decides the parameter shapes."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


class ConvNormActivation(nn.Sequential):
    """Conv2D, then the norm layer and the activation layer when given (Paddle's
    ``paddle.vision.ops.ConvNormActivation``): the sublayers are named ``0``, ``1``, ``2`` as there.
    The convolution has a bias only when there is no norm layer, unless ``bias`` says otherwise."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
