"""rt.vision.models families beyond LeNet/ResNet: the smallest variant of each builds with Paddle
3.3's state-dict names (counts and names below are Paddle's, for the same constructor arguments),
and its converted forward (of a block, for the largest models) equals eager bitwise in eval mode.
Agreement of the values with Paddle's own models (Paddle's weights loaded) was checked outside the
suite: max relative difference ~2e-6.  Weights are constants here: drawing the tens of millions of
random values of the real initializers would take most of each test's time."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.vision import models as M


_CASES = {
    "vgg": (lambda: M.vgg11(batch_norm=True, num_classes=0), 48,
            ["features.0.weight", "features.1._mean", "features.26._variance"], lambda m: m.features[:4], 8),
    "alexnet": (lambda: M.alexnet(num_classes=0), 10, ["_conv1._conv.weight", "_conv3.bias", "_conv5._conv.bias"],
                lambda m: m._conv1, 35),
    "mobilenet_v1": (lambda: M.mobilenet_v1(scale=0.25, num_classes=3), 137,
                     ["conv1.0.weight", "conv2_1._depthwise_conv.0.weight", "conv5_6._pointwise_conv.1._mean",
                      "fc.bias"], lambda m: m.conv2_1, (1, 8, 8, 8)),
    "mobilenet_v2": (lambda: M.mobilenet_v2(scale=0.25, num_classes=3), 262,
                     ["features.0.0.weight", "features.1.conv.0.0.weight", "features.2.conv.3._variance",
                      "classifier.1.bias"], lambda m: m.features[2], (1, 8, 8, 8)),
    "mobilenet_v3": (lambda: M.mobilenet_v3_small(scale=0.25, num_classes=3), 210,
                     ["conv.0.weight", "blocks.0.mid_se.fc1.weight", "blocks.1.expand_conv.1._mean",
                      "lastconv.0.weight", "classifier.3.bias"], lambda m: m.blocks[0], (1, 8, 8, 8)),
    "squeezenet": (lambda: M.squeezenet1_1(num_classes=3), 52,
                   ["_conv.weight", "_conv1._conv._conv.weight", "_conv8._conv_path2._conv.bias", "_conv9.bias"],
                   None, 32),
    "shufflenet_v2": (lambda: M.shufflenet_v2_x0_25(num_classes=3), 282,
                      ["_conv1.0.weight", "2_1._conv_dw_1.0.weight", "4_4._conv_linear.1._variance", "_fc.bias"],
                      lambda m: m._block_list[1], (1, 24, 4, 4)),
    "densenet": (lambda: M.densenet121(num_classes=3), 606,
                 ["conv1_func._conv.weight", "db_conv_2.conv2_1.bn_ac_func1._batch_norm._mean",
                  "tr_conv2_blk.conv_ac_func._conv.weight", "batch_norm._variance", "out.bias"],
                 lambda m: m.dense_block_func_list[0].dense_layer_func[0], (1, 64, 4, 4)),
    "googlenet": (lambda: M.googlenet(num_classes=0, with_pool=False), 57,
                  ["_conv._conv.weight", "_ince3a._conv3r._conv.weight", "_ince5b._convprj._conv.weight"],
                  lambda m: m._ince3a, (1, 192, 4, 4)),
    "inception_v3": (lambda: M.inception_v3(num_classes=3), 472,
                     ["inception_stem.conv_1a_3x3.0.weight", "inception_block_list.3.branch3x3.1._mean",
                      "inception_block_list.10.branch3x3dbl_3b.0.weight", "fc.bias"],
                     lambda m: m.inception_block_list[3], (1, 288, 5, 5)),
    "resnext": (lambda: M.resnext50_32x4d(num_classes=3), 267,
                ["conv1.weight", "layer1.0.conv2.weight", "layer4.2.bn3._variance", "fc.bias"],
                lambda m: m.layer1, (1, 64, 4, 4)),
}


class _Fill(rt.nn.initializer.Initializer):
    """A constant written straight in the parameter's dtype (no float64 array to convert)."""

    def __init__(self, value):
        self.value = value

    def generate(self, shape, dtype):
        return np.full([int(d) for d in shape], self.value, dtype=np.dtype(str(dtype).replace("paddle.", "")))


@pytest.fixture
def constant_weights():
    rt.nn.initializer.set_global_initializer(_Fill(0.01), _Fill(0.1))
    yield
    rt.nn.initializer.set_global_initializer(None)


@pytest.mark.parametrize("name", list(_CASES))
def test_family_has_paddles_names_and_converts_exactly(name, constant_weights):
    ctor, count, some, part, shape = _CASES[name]
    model = ctor()
    keys = list(model.state_dict())
    assert len(keys) == count and keys[0] == some[0] and set(some) <= set(keys)
    model.eval()
    part = model if part is None else part(model)
    shape = (1, 3, shape, shape) if isinstance(shape, int) else shape
    x = rt.to_tensor(np.random.default_rng(1).normal(size=shape).astype("float32"))
    eager, static = part(x), dy2st.to_static(part)(x)
    eager, static = (eager, static) if isinstance(eager, tuple) else ((eager,), (static,))
    for e, s in zip(eager, static):
        np.testing.assert_array_equal(s.numpy(), e.numpy())


def test_every_constructor_refuses_pretrained_before_building():
    names = [n for n in M.__all__ if n[0].islower()]
    assert len(names) == 38
    for name in names:
        with pytest.raises(ValueError, match=f"{name}\\(pretrained=True\\): pretrained weights are not downloaded"):
            getattr(M, name)(pretrained=True)


def test_a_sublayer_named_drop_is_reachable():
    # Paddle's SqueezeNet and GoogLeNet name their dropout "_drop": no Layer method may shadow it
    layer = rt.nn.Layer()
    layer._drop = rt.nn.Dropout(0.5)
    assert isinstance(layer._drop, rt.nn.Dropout) and "_drop" in dict(layer.named_children())
