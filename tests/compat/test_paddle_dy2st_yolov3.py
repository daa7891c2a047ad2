"""Paddle's test_yolov3 (with its yolov3.py and darknet.py), rewritten and shrunk (a sixteenth of the
channels, one residual block per DarkNet stage, 32x32 images, 4 classes, 2-image batches, three
iterations): YOLOv3's converted `forward` sets lists on `self` (`self.outputs = []`, then `append`),
divides `self.downsample //= 2` in a loop, reads `route` from the previous iteration, upsamples to
a size computed from `paddle.shape` / `paddle.slice` / `cast`, and returns `sum(self.losses)` of three
`paddle.vision.ops.yolo_loss` means; DarkNet-53's blocks sit in Python lists of `add_sublayer`ed
layers and it returns `blocks[-1:-4:-1]`; the legacy `BatchNorm(is_test=...)` with `ParamAttr`
regularizers. Trained as Paddle's test does: `paddle.enable_static()` at import and
`fluid.dygraph.guard` around training, the legacy `fluid.optimizer.Momentum(parameter_list=...,
regularization=...)` over `LinearWarmup` of a `PiecewiseDecay`, the program seeds set through
`default_main_program().random_seed`. Converted training equals eager bitwise (the smoothed
losses, and the parameters). Paddle's inference branch (`yolo_box` and the internal
`_legacy_C_ops.multiclass_nms`) is not ported: that op is not public API."""
import random

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import ParamAttr, fluid
from runtime.fluid.dygraph import to_variable
from runtime.nn import BatchNorm
from runtime.regularizer import L2Decay

W = 16  # Paddle's channels divided by this


class AttrDict(dict):
    def __getattr__(self, name):
        if name in self.__dict__:
            return self.__dict__[name]
        elif name in self:
            return self[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name in self.__dict__:
            self.__dict__[name] = value
        else:
            self[name] = value


cfg = AttrDict()
cfg.input_size = 32
cfg.anchors = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326]
cfg.anchor_masks = [[6, 7, 8], [3, 4, 5], [0, 1, 2]]
cfg.ignore_thresh = 0.7
cfg.label_smooth = True
cfg.batch_size = 2
cfg.learning_rate = 0.001
cfg.max_iter = 3
cfg.warm_up_iter = 2
cfg.lr_steps = [400000, 450000]
cfg.lr_gamma = 0.1
cfg.weight_decay = 0.0005
cfg.momentum = 0.9
cfg.class_num = 4


class ConvBNLayer(rt.nn.Layer):
    def __init__(self, ch_in, ch_out, filter_size=3, stride=1, groups=1, padding=0, act="leaky", is_test=True):
        super().__init__()
        self.conv = rt.nn.Conv2D(in_channels=ch_in, out_channels=ch_out, kernel_size=filter_size, stride=stride,
                                 padding=padding, groups=groups,
                                 weight_attr=ParamAttr(initializer=rt.nn.initializer.Normal(0.0, 0.02)),
                                 bias_attr=False)
        self.batch_norm = BatchNorm(
            num_channels=ch_out, is_test=is_test,
            param_attr=ParamAttr(initializer=rt.nn.initializer.Normal(0.0, 0.02), regularizer=L2Decay(0.0)),
            bias_attr=ParamAttr(initializer=rt.nn.initializer.Constant(0.0), regularizer=L2Decay(0.0)))
        self.act = act

    def forward(self, inputs):
        out = self.conv(inputs)
        out = self.batch_norm(out)
        if self.act == "leaky":
            out = rt.nn.functional.leaky_relu(out, 0.1)
        return out


class DownSample(rt.nn.Layer):
    def __init__(self, ch_in, ch_out, filter_size=3, stride=2, padding=1, is_test=True):
        super().__init__()
        self.conv_bn_layer = ConvBNLayer(ch_in=ch_in, ch_out=ch_out, filter_size=filter_size, stride=stride,
                                         padding=padding, is_test=is_test)
        self.ch_out = ch_out

    def forward(self, inputs):
        return self.conv_bn_layer(inputs)


class BasicBlock(rt.nn.Layer):
    def __init__(self, ch_in, ch_out, is_test=True):
        super().__init__()
        self.conv1 = ConvBNLayer(ch_in=ch_in, ch_out=ch_out, filter_size=1, stride=1, padding=0, is_test=is_test)
        self.conv2 = ConvBNLayer(ch_in=ch_out, ch_out=ch_out * 2, filter_size=3, stride=1, padding=1,
                                 is_test=is_test)

    def forward(self, inputs):
        conv1 = self.conv1(inputs)
        conv2 = self.conv2(conv1)
        return rt.add(x=inputs, y=conv2)


class LayerWarp(rt.nn.Layer):
    def __init__(self, ch_in, ch_out, count, is_test=True):
        super().__init__()
        self.basicblock0 = BasicBlock(ch_in, ch_out, is_test=is_test)
        self.res_out_list = []
        for i in range(1, count):
            res_out = self.add_sublayer(f"basic_block_{i}", BasicBlock(ch_out * 2, ch_out, is_test=is_test))
            self.res_out_list.append(res_out)
        self.ch_out = ch_out

    def forward(self, inputs):
        y = self.basicblock0(inputs)
        for basic_block_i in self.res_out_list:
            y = basic_block_i(y)
        return y


DarkNet_cfg = {53: ([1, 1, 1, 1, 1])}  # Paddle's [1, 2, 8, 8, 4]


class DarkNet53_conv_body(rt.nn.Layer):
    def __init__(self, ch_in=3, is_test=True):
        super().__init__()
        self.stages = DarkNet_cfg[53]
        self.stages = self.stages[0:5]
        self.conv0 = ConvBNLayer(ch_in=ch_in, ch_out=32 // W, filter_size=3, stride=1, padding=1, is_test=is_test)
        self.downsample0 = DownSample(ch_in=32 // W, ch_out=32 // W * 2, is_test=is_test)
        self.darknet53_conv_block_list = []
        self.downsample_list = []
        ch_in = [c // W for c in (64, 128, 256, 512, 1024)]
        for i, stage in enumerate(self.stages):
            conv_block = self.add_sublayer(f"stage_{i}",
                                           LayerWarp(int(ch_in[i]), 32 // W * (2**i), stage, is_test=is_test))
            self.darknet53_conv_block_list.append(conv_block)
        for i in range(len(self.stages) - 1):
            downsample = self.add_sublayer(
                f"stage_{i}_downsample",
                DownSample(ch_in=32 // W * (2 ** (i + 1)), ch_out=32 // W * (2 ** (i + 2)), is_test=is_test))
            self.downsample_list.append(downsample)

    def forward(self, inputs):
        out = self.conv0(inputs)
        out = self.downsample0(out)
        blocks = []
        for i, conv_block_i in enumerate(self.darknet53_conv_block_list):
            out = conv_block_i(out)
            blocks.append(out)
            if i < len(self.stages) - 1:
                out = self.downsample_list[i](out)
        return blocks[-1:-4:-1]


class YoloDetectionBlock(rt.nn.Layer):
    def __init__(self, ch_in, channel, is_test=True):
        super().__init__()
        assert channel % 2 == 0, f"channel {channel} cannot be divided by 2"
        self.conv0 = ConvBNLayer(ch_in=ch_in, ch_out=channel, filter_size=1, stride=1, padding=0, is_test=is_test)
        self.conv1 = ConvBNLayer(ch_in=channel, ch_out=channel * 2, filter_size=3, stride=1, padding=1,
                                 is_test=is_test)
        self.conv2 = ConvBNLayer(ch_in=channel * 2, ch_out=channel, filter_size=1, stride=1, padding=0,
                                 is_test=is_test)
        self.conv3 = ConvBNLayer(ch_in=channel, ch_out=channel * 2, filter_size=3, stride=1, padding=1,
                                 is_test=is_test)
        self.route = ConvBNLayer(ch_in=channel * 2, ch_out=channel, filter_size=1, stride=1, padding=0,
                                 is_test=is_test)
        self.tip = ConvBNLayer(ch_in=channel, ch_out=channel * 2, filter_size=3, stride=1, padding=1,
                               is_test=is_test)

    def forward(self, inputs):
        out = self.conv0(inputs)
        out = self.conv1(out)
        out = self.conv2(out)
        out = self.conv3(out)
        route = self.route(out)
        tip = self.tip(route)
        return route, tip


class Upsample(rt.nn.Layer):
    def __init__(self, scale=2):
        super().__init__()
        self.scale = scale

    def forward(self, inputs):
        shape_nchw = rt.shape(inputs)
        shape_hw = rt.slice(shape_nchw, axes=[0], starts=[2], ends=[4])
        shape_hw.stop_gradient = True
        in_shape = rt.cast(shape_hw, dtype="int32")
        out_shape = in_shape * self.scale
        out_shape.stop_gradient = True
        return rt.nn.functional.interpolate(x=inputs, size=out_shape, mode="nearest")


class YOLOv3(rt.nn.Layer):
    def __init__(self, ch_in, is_train=True, use_random=False):
        super().__init__()
        self.is_train = is_train
        self.use_random = use_random
        self.block = DarkNet53_conv_body(ch_in=ch_in, is_test=not self.is_train)
        self.block_outputs = []
        self.yolo_blocks = []
        self.route_blocks_2 = []
        ch_in_list = [c // W for c in (1024, 768, 384)]
        for i in range(3):
            yolo_block = self.add_sublayer(
                f"yolo_detecton_block_{i}",
                YoloDetectionBlock(ch_in_list[i], channel=512 // W // (2**i), is_test=not self.is_train))
            self.yolo_blocks.append(yolo_block)
            num_filters = len(cfg.anchor_masks[i]) * (cfg.class_num + 5)
            block_out = self.add_sublayer(
                f"block_out_{i}",
                rt.nn.Conv2D(in_channels=1024 // W // (2**i), out_channels=num_filters, kernel_size=1, stride=1,
                             padding=0, weight_attr=ParamAttr(initializer=rt.nn.initializer.Normal(0.0, 0.02)),
                             bias_attr=ParamAttr(initializer=rt.nn.initializer.Constant(0.0),
                                                 regularizer=L2Decay(0.0))))
            self.block_outputs.append(block_out)
            if i < 2:
                route = self.add_sublayer(
                    f"route2_{i}",
                    ConvBNLayer(ch_in=512 // W // (2**i), ch_out=256 // W // (2**i), filter_size=1, stride=1,
                                padding=0, is_test=(not self.is_train)))
                self.route_blocks_2.append(route)
            self.upsample = Upsample()

    @dy2st.to_static
    def forward(self, inputs, gtbox=None, gtlabel=None, gtscore=None, im_id=None, im_shape=None):
        self.outputs = []
        self.boxes = []
        self.scores = []
        self.losses = []
        self.downsample = 32
        blocks = self.block(inputs)
        for i, block in enumerate(blocks):
            if i > 0:
                block = rt.concat([route, block], axis=1)  # noqa: F821
            route, tip = self.yolo_blocks[i](block)
            block_out = self.block_outputs[i](tip)
            self.outputs.append(block_out)
            if i < 2:
                route = self.route_blocks_2[i](route)
                route = self.upsample(route)
        self.gtbox = gtbox
        self.gtlabel = gtlabel
        self.gtscore = gtscore
        self.im_id = im_id
        self.im_shape = im_shape
        for i, out in enumerate(self.outputs):
            anchor_mask = cfg.anchor_masks[i]
            if self.is_train:
                loss = rt.vision.ops.yolo_loss(
                    x=out, gt_box=self.gtbox, gt_label=self.gtlabel, gt_score=self.gtscore, anchors=cfg.anchors,
                    anchor_mask=anchor_mask, class_num=cfg.class_num, ignore_thresh=cfg.ignore_thresh,
                    downsample_ratio=self.downsample, use_label_smooth=cfg.label_smooth)
                self.losses.append(rt.mean(loss))
            self.downsample //= 2
        return sum(self.losses)


class SmoothedValue:
    def __init__(self):
        self.loss_sum = 0.0
        self.iter_cnt = 0

    def add_value(self, value):
        self.loss_sum += np.mean(value)
        self.iter_cnt += 1

    def get_mean_value(self):
        return self.loss_sum / self.iter_cnt


class FakeDataReader:
    def __init__(self):
        self.generator_out = []
        self.total_iter = cfg.max_iter
        for _ in range(self.total_iter):
            batch_out = []
            for _ in range(cfg.batch_size):
                img = np.random.normal(0.485, 0.229, [3, cfg.input_size, cfg.input_size])
                point1, point2 = 1 / 4, 1 / 2
                gt_boxes = np.array([[point1, point1, point2, point2]])
                gt_labels = np.random.randint(low=0, high=cfg.class_num, size=[1])
                gt_scores = np.zeros([1])
                batch_out.append([img, gt_boxes, gt_labels, gt_scores])
            self.generator_out.append(batch_out)

    def reader(self):
        def generator():
            for i in range(self.total_iter):
                yield self.generator_out[i]
        return generator


@pytest.fixture
def static_mode():
    rt.enable_static()  # Paddle's test enables static mode at import and trains under dygraph.guard
    try:
        yield
    finally:
        rt.disable_static()


def train(to_static):
    dy2st.enable_to_static(to_static)
    random.seed(0)
    np.random.seed(0)
    try:
        with fluid.dygraph.guard(fluid.CPUPlace()):
            fluid.default_startup_program().random_seed = 1000
            fluid.default_main_program().random_seed = 1000
            rt.seed(1000)
            model = YOLOv3(3, is_train=True)
            values = [cfg.learning_rate * (cfg.lr_gamma**i) for i in range(len(cfg.lr_steps) + 1)]
            lr = rt.optimizer.lr.PiecewiseDecay(boundaries=cfg.lr_steps, values=values)
            lr = rt.optimizer.lr.LinearWarmup(learning_rate=lr, warmup_steps=cfg.warm_up_iter, start_lr=0.0,
                                              end_lr=cfg.learning_rate)
            optimizer = fluid.optimizer.Momentum(learning_rate=lr, regularization=rt.regularizer.L2Decay(
                cfg.weight_decay), momentum=cfg.momentum, parameter_list=model.parameters())
            smoothed_loss = SmoothedValue()
            ret = []
            for data in FakeDataReader().reader()():
                img = to_variable(np.array([x[0] for x in data]).astype("float32"))
                gt_box = to_variable(np.array([x[1] for x in data]).astype("float32"))
                gt_label = to_variable(np.array([x[2] for x in data]).astype("int32"))
                gt_score = to_variable(np.array([x[3] for x in data]).astype("float32"))
                loss = model(img, gt_box, gt_label, gt_score, None, None)
                smoothed_loss.add_value(np.mean(loss.numpy()))
                ret.append(smoothed_loss.get_mean_value())
                loss.backward()
                optimizer.minimize(loss)
                model.clear_gradients()
                lr.step()
            return np.array(ret), [p.numpy() for p in model.parameters()], len(model.losses)
    finally:
        dy2st.enable_to_static(True)


def test_dygraph_static_same_loss(static_mode):
    dygraph_loss, dygraph_params, n = train(to_static=False)
    static_loss, static_params, m = train(to_static=True)
    assert rt.in_dynamic_mode() is False and n == m == 3  # the lists the forward kept on the model
    np.testing.assert_array_equal(static_loss, dygraph_loss)
    for a, b in zip(dygraph_params, static_params):
        np.testing.assert_array_equal(b, a)
