"""Paddle's test_resnet and test_build_strategy, rewritten and shrunk (one bottleneck block per
stage, channels divided by 16, 32x32 images): the ResNet of `ConvBNLayer`s with the legacy `nn.BatchNorm(act=...)`, blocks
added with `add_sublayer` and kept in a Python list the converted `forward` loops over, a
`Uniform` initialised head and softmax; trained from an `io.Dataset` of tensors through a
`DataLoader(drop_last=True)` with Momentum and L2 decay, `paddle.metric.accuracy` top-1/top-5, the
losses summed as tensors (`total_loss += avg_loss`), `optimizer.minimize` and `clear_gradients`.
Converted training equals eager bitwise; the converted model saved with `paddle.jit.save`, the
eager one's `state_dict` loaded into a fresh model under `enable_to_static(False)`, the inference
model read by `static.load_inference_model` and run by an Executor, `paddle.jit.load`, and the
legacy `AnalysisConfig` predictor of Paddle's predictor_utils all predict the same. With a
`BuildStrategy` asking for Paddle's fusion passes (`fuse_elewise_add_act_ops`, `fuse_bn_act_ops`,
`fuse_bn_add_act_ops`, `enable_addto`) and `FLAGS_max_inplace_grad_add` set, the numbers do not
change; a build strategy that is not one is a TypeError. (test_resnet_amp and test_resnet_v2 are in
test_paddle_dy2st_resnet_variants.py.)"""
import math
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import translated_layer
from runtime.base import core

SEED = 2020
base_lr = 0.001
momentum_rate = 0.9
l2_decay = 1e-4
batch_size = 2
WIDTH = 16  # Paddle's channels divided by this
IMAGE = 32


def optimizer_setting(parameter_list=None):
    return rt.optimizer.Momentum(learning_rate=base_lr, momentum=momentum_rate,
                                 weight_decay=rt.regularizer.L2Decay(l2_decay), parameters=parameter_list)


class ConvBNLayer(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1, act=None):
        super().__init__()
        self._conv = rt.nn.Conv2D(in_channels=num_channels, out_channels=num_filters, kernel_size=filter_size,
                                  stride=stride, padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)
        self._batch_norm = rt.nn.BatchNorm(num_filters, act=act)

    def forward(self, inputs):
        y = self._conv(inputs)
        y = self._batch_norm(y)
        return y


class BottleneckBlock(rt.nn.Layer):
    def __init__(self, num_channels, num_filters, stride, shortcut=True):
        super().__init__()
        self.conv0 = ConvBNLayer(num_channels=num_channels, num_filters=num_filters, filter_size=1, act="relu")
        self.conv1 = ConvBNLayer(num_channels=num_filters, num_filters=num_filters, filter_size=3, stride=stride,
                                 act="relu")
        self.conv2 = ConvBNLayer(num_channels=num_filters, num_filters=num_filters * 4, filter_size=1, act=None)
        if not shortcut:
            self.short = ConvBNLayer(num_channels=num_channels, num_filters=num_filters * 4, filter_size=1,
                                     stride=stride)
        self.shortcut = shortcut
        self._num_channels_out = num_filters * 4

    def forward(self, inputs):
        y = self.conv0(inputs)
        conv1 = self.conv1(y)
        conv2 = self.conv2(conv1)
        if self.shortcut:
            short = inputs
        else:
            short = self.short(inputs)
        y = rt.add(x=short, y=conv2)
        return rt.nn.functional.relu(y)


class ResNet(rt.nn.Layer):
    def __init__(self, layers=50, class_dim=102, depth=None):
        super().__init__()
        self.layers = layers
        supported_layers = [50, 101, 152]
        assert layers in supported_layers, f"supported layers are {supported_layers} but input layer is {layers}"
        if depth is None:
            depth = {50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}[layers]
        num_channels = [c // WIDTH for c in (64, 256, 512, 1024)]
        num_filters = [c // WIDTH for c in (64, 128, 256, 512)]
        self.conv = ConvBNLayer(num_channels=3, num_filters=64 // WIDTH, filter_size=7, stride=2, act="relu")
        self.pool2d_max = rt.nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.bottleneck_block_list = []
        for block in range(len(depth)):
            shortcut = False
            for i in range(depth[block]):
                bottleneck_block = self.add_sublayer(
                    "bb_%d_%d" % (block, i),
                    BottleneckBlock(num_channels=num_channels[block] if i == 0 else num_filters[block] * 4,
                                    num_filters=num_filters[block], stride=2 if i == 0 and block != 0 else 1,
                                    shortcut=shortcut))
                self.bottleneck_block_list.append(bottleneck_block)
                shortcut = True
        self.pool2d_avg = rt.nn.AdaptiveAvgPool2D(1)
        self.pool2d_avg_output = num_filters[len(num_filters) - 1] * 4 * 1 * 1
        stdv = 1.0 / math.sqrt(2048 * 1.0)
        self.out = rt.nn.Linear(in_features=self.pool2d_avg_output, out_features=class_dim,
                                weight_attr=rt.ParamAttr(initializer=rt.nn.initializer.Uniform(-stdv, stdv)))

    def forward(self, inputs):
        y = self.conv(inputs)
        y = self.pool2d_max(y)
        for bottleneck_block in self.bottleneck_block_list:
            y = bottleneck_block(y)
        y = self.pool2d_avg(y)
        y = rt.reshape(y, shape=[-1, self.pool2d_avg_output])
        pred = self.out(y)
        pred = rt.nn.functional.softmax(pred)
        return pred


class TransedFlowerDataSet(rt.io.Dataset):
    def __init__(self, length):
        self.img = []
        self.label = []
        self._generate(length)

    def _generate(self, length):
        for i, _ in enumerate(range(1000)):
            image = rt.randn((3, IMAGE, IMAGE)).astype("float32").cpu()
            label = np.array([rt.randint(0, 100, (1,)).astype("int64").item()])
            if i >= length:
                break
            self.img.append(image)
            self.label.append(label)

    def __getitem__(self, idx):
        return self.img[idx], self.label[idx]

    def __len__(self):
        return len(self.img)


class PredictorTools:
    """Paddle's predictor_utils: the legacy AnalysisConfig / create_paddle_predictor API."""

    def __init__(self, model_path, model_file, params_file, feeds_var):
        self.model_path, self.model_file, self.params_file, self.feeds_var = model_path, model_file, params_file, feeds_var

    def _load_model_and_set_config(self):
        if os.path.exists(os.path.join(self.model_path, self.params_file)):
            config = core.AnalysisConfig(os.path.join(self.model_path, self.model_file),
                                         os.path.join(self.model_path, self.params_file))
        else:
            config = core.AnalysisConfig(os.path.join(self.model_path))
        if rt.base.is_compiled_with_cuda():
            config.enable_use_gpu(100, 0)
        else:
            config.disable_gpu()
        config.switch_specify_input_names(True)
        config.switch_use_feed_fetch_ops(False)
        config.enable_memory_optim()
        config.disable_glog_info()
        config.switch_ir_optim(False)
        return config

    def _get_analysis_outputs(self, config):
        predictor = core.create_paddle_predictor(config)
        names = predictor.get_input_names()
        for i, name in enumerate(names):
            predictor.get_input_tensor(name).copy_from_cpu(np.array(self.feeds_var[i]))
        for _ in range(2):  # no difference between repeated runs
            assert predictor.zero_copy_run()
        return [predictor.get_output_tensor(out_name).copy_to_cpu() for out_name in predictor.get_output_names()]

    def __call__(self):
        return self._get_analysis_outputs(self._load_model_and_set_config())


@pytest.fixture
def paths(tmp_path):
    return {"dir": os.path.join(tmp_path, "inference"), "prefix": os.path.join(tmp_path, "inference", "resnet"),
            "model": "resnet" + translated_layer.INFER_MODEL_SUFFIX,
            "params": "resnet" + translated_layer.INFER_PARAMS_SUFFIX,
            "dygraph": os.path.join(tmp_path, "resnet.dygraph")}


def do_train(to_static, paths, depth, steps, build_strategy=None):
    dy2st.enable_to_static(to_static)
    try:
        np.random.seed(SEED)
        rt.seed(SEED)
        rt.framework.random._manual_program_seed(SEED)
        dataset = TransedFlowerDataSet(batch_size * (steps + 1))
        data_loader = rt.io.DataLoader(dataset, batch_size=batch_size, drop_last=True)
        resnet = dy2st.to_static(ResNet(depth=depth), build_strategy=build_strategy)
        optimizer = optimizer_setting(parameter_list=resnet.parameters())
        total_loss, total_acc1, total_acc5, total_sample = 0.0, 0.0, 0.0, 0
        losses = []
        for batch_id, data in enumerate(data_loader()):
            img_, label = data
            expected_place = rt.framework._current_expected_place()
            assert img_.stop_gradient and img_.place._equals(expected_place)
            img = img_
            pred = resnet(img)
            loss = rt.nn.functional.cross_entropy(input=pred, label=label)
            avg_loss = rt.mean(x=loss)
            acc_top1 = rt.metric.accuracy(input=pred, label=label, k=1)
            acc_top5 = rt.metric.accuracy(input=pred, label=label, k=5)
            avg_loss.backward()
            optimizer.minimize(avg_loss)
            resnet.clear_gradients()
            total_loss += avg_loss
            total_acc1 += acc_top1
            total_acc5 += acc_top5
            total_sample += 1
            losses.append((avg_loss.numpy(), acc_top1.numpy(), acc_top5.numpy()))
            if batch_id == steps:
                if to_static:
                    dy2st.save(resnet, paths["prefix"])
                else:
                    rt.save(resnet.state_dict(), paths["dygraph"] + ".pdparams")
                break
        return total_loss.numpy(), losses, [p.numpy() for p in resnet.parameters()]
    finally:
        dy2st.enable_to_static(True)


def predict_dygraph(data, paths, depth):
    dy2st.enable_to_static(False)
    try:
        resnet = dy2st.to_static(ResNet(depth=depth))
        resnet.set_dict(rt.load(paths["dygraph"] + ".pdparams"))
        resnet.eval()
        return resnet(rt.to_tensor(data=data, dtype=None, place=None, stop_gradient=True)).numpy()
    finally:
        dy2st.enable_to_static(True)


def predict_static(data, paths):
    rt.enable_static()
    try:
        exe = rt.static.Executor(rt.CPUPlace())
        inference_program, feed_target_names, fetch_targets = rt.static.load_inference_model(
            paths["dir"], executor=exe, model_filename=paths["model"], params_filename=paths["params"])
        return exe.run(inference_program, feed={feed_target_names[0]: data}, fetch_list=fetch_targets)[0]
    finally:
        rt.disable_static()


def predict_dygraph_jit(data, paths):
    resnet = dy2st.load(paths["prefix"])
    resnet.eval()
    return resnet(rt.to_tensor(data)).numpy()


def _check(paths, depth, steps, build_strategy=None):
    static_loss, static_steps, static_params = do_train(True, paths, depth, steps, build_strategy)
    dygraph_loss, dygraph_steps, dygraph_params = do_train(False, paths, depth, steps)
    np.testing.assert_array_equal(static_loss, dygraph_loss)
    for a, b in zip(dygraph_steps, static_steps):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(y, x)
    for a, b in zip(dygraph_params, static_params):
        np.testing.assert_array_equal(b, a)
    for n in (1, 3):  # the saved model serves any batch size
        image = np.random.default_rng(n).random([n, 3, IMAGE, IMAGE]).astype("float32")
        dy_pre = predict_dygraph(image, paths, depth)
        st_pre = predict_static(image, paths)
        assert st_pre.shape == (n, 102)
        np.testing.assert_array_equal(st_pre, dy_pre)
        np.testing.assert_array_equal(predict_dygraph_jit(image, paths), st_pre)
        (predictor_pre,) = PredictorTools(paths["dir"], paths["model"], paths["params"], [image])()
        np.testing.assert_array_equal(predictor_pre, st_pre)


def test_resnet_trains_saves_and_predicts_as_eagerly(paths):
    _check(paths, depth=[1, 1, 1, 1], steps=2)


@pytest.mark.slow
def test_resnet50_depth_ten_steps(paths):
    _check(paths, depth=None, steps=10)


def test_resnet_with_fusion_passes_asked_for(paths):
    build_strategy = rt.static.BuildStrategy()
    build_strategy.fuse_elewise_add_act_ops = True
    build_strategy.fuse_bn_act_ops = True
    build_strategy.fuse_bn_add_act_ops = True
    build_strategy.enable_addto = True
    rt.set_flags({"FLAGS_max_inplace_grad_add": 8})
    try:
        _check(paths, depth=[1, 1, 1, 1], steps=1, build_strategy=build_strategy)
    finally:
        rt.set_flags({"FLAGS_max_inplace_grad_add": 0})


def test_build_strategy_of_another_type_is_a_type_error():
    def foo(x):
        return x + 1

    with pytest.raises(TypeError, match="build_strategy"):
        dy2st.to_static(foo, build_strategy="x")

