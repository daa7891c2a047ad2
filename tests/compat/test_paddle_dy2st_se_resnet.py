"""Paddle's test_se_resnet, rewritten and shrunk (one block per stage, a sixteenth of the filters, an
eighth of the cardinality, 32x32 images, 4-image batches from a seeded reader in place of the
flowers download, three steps): SE-ResNeXt with grouped convolutions, squeeze-excitation scaling by
`paddle.tensor.math._multiply_with_axis(axis=0)`, `Dropout(mode='downscale_in_infer')` and a
`forward(inputs, label)` decorated in the class body that returns the logits, the loss and
`paddle.static.accuracy` top-1/top-5, with a Python `if` on the depth; trained under
`base.dygraph.guard` with Momentum over `CosineAnnealingDecay` and L2 decay, reading
`optimizer._global_learning_rate()` at every step. Converted training equals eager bitwise (the
dropout masks drawn in the same order). The converted model is saved with named specs,
`input_names_after_prune=['x']`, `output_spec=[pred]` and `clip_extra=False`; the eager model's
`state_dict` loaded under `enable_to_static(False)`, the inference model run by an Executor,
`paddle.jit.load` and the legacy predictor then predict the same. The label's spec is int64 here:
Paddle's test leaves it float32, which its static `accuracy` accepts while tracing (the output is
pruned and never runs); `accuracy` here refuses float labels wherever it is traced, as eagerly."""
import math
import os

import numpy as np

import dy2st
import runtime as rt
from dy2st.translated_layer import INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX
from runtime import base
from runtime.base.dygraph.base import to_variable
from runtime.nn import BatchNorm, Linear
from runtime.static import InputSpec

from .test_paddle_dy2st_resnet import PredictorTools

SEED = 2020
BATCH_SIZE = 4
STEP_NUM = 3
IMAGE = 32
WIDTH = 16  # Paddle's filters divided by this (its cardinality by 8, its reduction ratio by 4)

train_parameters = {
    "learning_strategy": {"name": "cosine_decay", "batch_size": BATCH_SIZE, "epochs": [40, 80, 100],
                          "steps": [0.1, 0.01, 0.001, 0.0001]},
    "lr": 0.0125, "total_images": 6149, "momentum_rate": 0.9, "l2_decay": 1.2e-4, "num_epochs": 1,
}


def optimizer_setting(params, parameter_list):
    ls = params["learning_strategy"]
    total_images = params.get("total_images", 6149)
    step = int(math.ceil(float(total_images) / ls["batch_size"]))
    assert [step * e for e in ls["epochs"]]
    return rt.optimizer.Momentum(
        learning_rate=rt.optimizer.lr.CosineAnnealingDecay(learning_rate=params["lr"], T_max=params["num_epochs"]),
        momentum=params["momentum_rate"], weight_decay=rt.regularizer.L2Decay(params["l2_decay"]),
        parameters=parameter_list)


class ConvBNLayer(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1, act=None):
        super().__init__()
        self._conv = rt.nn.Conv2D(in_channels=num_channels, out_channels=num_filters, kernel_size=filter_size,
                                  stride=stride, padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)
        self._batch_norm = BatchNorm(num_filters, act=act)

    def forward(self, inputs):
        y = self._conv(inputs)
        y = self._batch_norm(y)
        return y


class SqueezeExcitation(rt.nn.Layer):
    def __init__(self, num_channels, reduction_ratio):
        super().__init__()
        self._num_channels = num_channels
        self._pool = rt.nn.AdaptiveAvgPool2D(1)
        stdv = 1.0 / math.sqrt(num_channels * 1.0)
        self._fc = Linear(num_channels, num_channels // reduction_ratio,
                          weight_attr=base.ParamAttr(initializer=rt.nn.initializer.Uniform(-stdv, stdv)))
        stdv = 1.0 / math.sqrt(num_channels / 16.0 * 1.0)
        self._excitation = Linear(num_channels // reduction_ratio, num_channels,
                                  weight_attr=base.ParamAttr(initializer=rt.nn.initializer.Uniform(-stdv, stdv)))

    def forward(self, input):
        y = self._pool(input)
        y = rt.reshape(y, shape=[-1, self._num_channels])
        y = self._fc(y)
        y = rt.nn.functional.relu(y)
        y = self._excitation(y)
        y = rt.nn.functional.sigmoid(y)
        y = rt.tensor.math._multiply_with_axis(x=input, y=y, axis=0)
        return y


class BottleneckBlock(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, stride, cardinality, reduction_ratio, shortcut=True):
        super().__init__()
        self.conv0 = ConvBNLayer(num_channels=num_channels, num_filters=num_filters, filter_size=1, act="relu")
        self.conv1 = ConvBNLayer(num_channels=num_filters, num_filters=num_filters, filter_size=3, stride=stride,
                                 groups=cardinality, act="relu")
        self.conv2 = ConvBNLayer(num_channels=num_filters, num_filters=num_filters * 2, filter_size=1, act=None)
        self.scale = SqueezeExcitation(num_channels=num_filters * 2, reduction_ratio=reduction_ratio)
        if not shortcut:
            self.short = ConvBNLayer(num_channels=num_channels, num_filters=num_filters * 2, filter_size=1,
                                     stride=stride)
        self.shortcut = shortcut
        self._num_channels_out = num_filters * 2

    def forward(self, inputs):
        y = self.conv0(inputs)
        conv1 = self.conv1(y)
        conv2 = self.conv2(conv1)
        scale = self.scale(conv2)
        if self.shortcut:
            short = inputs
        else:
            short = self.short(inputs)
        y = rt.nn.functional.relu(rt.add(x=short, y=scale))
        return y


class SeResNeXt(rt.nn.Layer):
    def __init__(self, layers=50, class_dim=102):
        super().__init__()
        self.layers = layers
        supported_layers = [50, 101, 152]
        assert layers in supported_layers, f"supported layers are {supported_layers} but input layer is {layers}"
        cardinality, reduction_ratio = 32 // 8, 16 // 4
        depth = [1, 1, 1, 1]
        num_filters = [f // WIDTH for f in (128, 256, 512, 1024)]
        stem = 64 // WIDTH
        if layers == 152:
            self.conv0 = ConvBNLayer(num_channels=3, num_filters=stem, filter_size=3, stride=2, act="relu")
            self.conv1 = ConvBNLayer(num_channels=stem, num_filters=stem, filter_size=3, stride=1, act="relu")
            self.conv2 = ConvBNLayer(num_channels=stem, num_filters=2 * stem, filter_size=3, stride=1, act="relu")
        else:
            self.conv0 = ConvBNLayer(num_channels=3, num_filters=stem, filter_size=7, stride=2, act="relu")
        self.pool = rt.nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.bottleneck_block_list = []
        num_channels = 2 * stem if layers == 152 else stem
        for block in range(len(depth)):
            shortcut = False
            for i in range(depth[block]):
                bottleneck_block = self.add_sublayer(
                    "bb_%d_%d" % (block, i),
                    BottleneckBlock(num_channels=num_channels, num_filters=num_filters[block],
                                    stride=2 if i == 0 and block != 0 else 1, cardinality=cardinality,
                                    reduction_ratio=reduction_ratio, shortcut=shortcut))
                num_channels = bottleneck_block._num_channels_out
                self.bottleneck_block_list.append(bottleneck_block)
                shortcut = True
        self.pool2d_avg = rt.nn.AdaptiveAvgPool2D(1)
        stdv = 1.0 / math.sqrt(2048 * 1.0)
        self.pool2d_avg_output = num_filters[len(num_filters) - 1] * 2 * 1 * 1
        self.dropout = rt.nn.Dropout(p=0.5, mode="downscale_in_infer")
        self.out = Linear(self.pool2d_avg_output, class_dim,
                          weight_attr=base.param_attr.ParamAttr(initializer=rt.nn.initializer.Uniform(-stdv, stdv)))

    @dy2st.to_static(full_graph=True)
    def forward(self, inputs, label):
        if self.layers == 50 or self.layers == 101:
            y = self.conv0(inputs)
            y = self.pool(y)
        elif self.layers == 152:
            y = self.conv0(inputs)
            y = self.conv1(y)
            y = self.conv2(y)
            y = self.pool(y)
        for bottleneck_block in self.bottleneck_block_list:
            y = bottleneck_block(y)
        y = self.pool2d_avg(y)
        y = self.dropout(y)
        y = rt.reshape(y, shape=[-1, self.pool2d_avg_output])
        out = self.out(y)
        softmax_out = rt.nn.functional.softmax(out)
        loss = rt.nn.functional.cross_entropy(input=softmax_out, label=label, reduction="none", use_softmax=False)
        avg_loss = rt.mean(x=loss)
        acc_top1 = rt.static.accuracy(input=softmax_out, label=label, k=1)
        acc_top5 = rt.static.accuracy(input=softmax_out, label=label, k=5)
        return out, avg_loss, acc_top1, acc_top5


def flowers_like_train():
    """A sample reader as ``paddle.dataset.flowers.train()`` is: (flat CHW floats, label in 1..102)."""
    def reader():
        rng = np.random.default_rng(5)
        while True:
            yield rng.random(3 * IMAGE * IMAGE).astype("float32"), int(rng.integers(1, 103))
    return reader


def _paths(tmp_path):
    return {"dir": os.path.join(tmp_path, "inference"), "prefix": os.path.join(tmp_path, "inference", "se_resnet"),
            "model": "se_resnet" + INFER_MODEL_SUFFIX, "params": "se_resnet" + INFER_PARAMS_SUFFIX,
            "dygraph": os.path.join(tmp_path, "se_resnet.dygraph")}


def train(train_reader, to_static, paths, layers=50):
    np.random.seed(SEED)
    dy2st.enable_to_static(to_static)
    try:
        with base.dygraph.guard(rt.CPUPlace()):
            rt.seed(SEED)
            rt.framework.random._manual_program_seed(SEED)
            se_resnext = SeResNeXt(layers)
            optimizer = optimizer_setting(train_parameters, se_resnext.parameters())
            steps = []
            for step_id, data in enumerate(train_reader()):
                dy_x_data = np.array([x[0].reshape(3, IMAGE, IMAGE) for x in data]).astype("float32")
                y_data = np.array([x[1] for x in data]).astype("int64").reshape(BATCH_SIZE, 1)
                img = to_variable(dy_x_data)
                label = to_variable(y_data)
                label.stop_gradient = True
                pred, avg_loss, acc_top1, acc_top5 = se_resnext(img, label)
                dy_out = avg_loss.numpy()
                avg_loss.backward()
                optimizer.minimize(avg_loss)
                se_resnext.clear_gradients()
                lr = optimizer._global_learning_rate().numpy()
                steps.append((dy_out, acc_top1.numpy(), acc_top5.numpy(), lr))
                if step_id + 1 == STEP_NUM:
                    if to_static:
                        dy2st.save(se_resnext, paths["prefix"], output_spec=[pred], input_names_after_prune=["x"],
                                   input_spec=[InputSpec(shape=[None, 3, IMAGE, IMAGE], name="x"),
                                               InputSpec(shape=[None, 1], dtype="int64", name="y")],
                                   clip_extra=False)
                    else:
                        rt.save(se_resnext.state_dict(), paths["dygraph"] + ".pdparams")
                    break
            return pred.numpy(), avg_loss.numpy(), acc_top1.numpy(), acc_top5.numpy(), steps
    finally:
        dy2st.enable_to_static(True)


def predict_dygraph(data, paths):
    dy2st.enable_to_static(False)
    try:
        with base.dygraph.guard(rt.CPUPlace()):
            se_resnext = SeResNeXt()
            se_resnext.set_dict(rt.load(paths["dygraph"] + ".pdparams"))
            se_resnext.eval()
            label = np.random.random([len(data), 1]).astype("int64")
            pred_res, _, _, _ = se_resnext(base.dygraph.to_variable(data), base.dygraph.to_variable(label))
            return pred_res.numpy()
    finally:
        dy2st.enable_to_static(True)


def predict_static(data, paths):
    rt.enable_static()
    try:
        exe = base.Executor(rt.CPUPlace())
        inference_program, feed_target_names, fetch_targets = rt.static.io.load_inference_model(
            paths["dir"], executor=exe, model_filename=paths["model"], params_filename=paths["params"])
        assert feed_target_names == ["x"]
        return exe.run(inference_program, feed={feed_target_names[0]: data}, fetch_list=fetch_targets)[0]
    finally:
        rt.disable_static()


def test_se_resnext_trains_saves_and_predicts_as_eagerly(tmp_path):
    paths = _paths(tmp_path)
    reader = rt.batch(flowers_like_train(), batch_size=BATCH_SIZE, drop_last=True)
    dy = train(reader, False, paths)
    st = train(reader, True, paths)
    for a, b in zip(dy[:4], st[:4]):
        np.testing.assert_array_equal(b, a)
    for a, b in zip(dy[4], st[4]):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(y, x)
    for n in (1, 2):
        image = np.random.default_rng(n).random([n, 3, IMAGE, IMAGE]).astype("float32")
        st_pre = predict_static(image, paths)
        np.testing.assert_array_equal(st_pre, predict_dygraph(image, paths))
        loaded = dy2st.load(paths["prefix"])
        loaded.eval()
        np.testing.assert_array_equal(loaded(rt.to_tensor(image)).numpy(), st_pre)
        (predictor_pre,) = PredictorTools(paths["dir"], paths["model"], paths["params"], [image])()
        np.testing.assert_array_equal(predictor_pre, st_pre)
