"""Vision user code ported by changing imports: a Faster R-CNN box head on ``RoIAlign`` features
(PaddleDetection's TwoFCHead over proposals), converted with ``None`` dims for the images, the
number of boxes and the boxes per image, trained like eager and PaddlePaddle 3.3, saved and served;
StyleGAN2's modulated convolution (PaddleGAN), whose grouped conv has one group per image of a
``None`` batch dim; an SSD head's prior boxes and box decoding for images of any size."""
import math

import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from runtime.vision.ops import RoIAlign


def _seeded(net, seed=0, scale=0.3):
    rng = np.random.default_rng(seed)
    sd = net.state_dict()
    net.set_state_dict({k: paddle.to_tensor((rng.standard_normal(sd[k].shape) * scale).astype("float32"))
                        for k in sorted(sd)})
    return net


class RoIBoxHead(nn.Layer):
    def __init__(self, num_classes=3, resolution=2):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2D(3, 4, 3, stride=2, padding=1), nn.ReLU())
        self.roi_extractor = RoIAlign(output_size=resolution, spatial_scale=0.5)
        self.fc6 = nn.Linear(4 * resolution * resolution, 8)
        self.fc7 = nn.Linear(8, 8)
        self.bbox_score = nn.Linear(8, num_classes + 1)
        self.bbox_delta = nn.Linear(8, 4 * num_classes)

    def forward(self, image, rois, rois_num):
        feat = self.backbone(image)
        rois_feat = self.roi_extractor(feat, rois, rois_num)
        rois_feat = paddle.flatten(rois_feat, start_axis=1, stop_axis=-1)
        fc7 = F.relu(self.fc7(F.relu(self.fc6(rois_feat))))
        return self.bbox_score(fc7), self.bbox_delta(fc7)


def _batch(rng, b, h, w, nums):
    n = sum(nums)
    xy = rng.uniform(0, min(h, w) / 2, (n, 2))
    wh = rng.uniform(2.5, min(h, w) / 2, (n, 2))  # a cell or more at spatial_scale 0.5 (see below)
    return (rng.standard_normal((b, 3, h, w)).astype("float32"), np.concatenate([xy, xy + wh], 1).astype("float32"),
            np.array(nums, "int32"))


def test_rcnn_box_head_on_roi_align_trains_like_eager_and_paddle_for_any_number_of_boxes(tmp_path):
    # paddle.vision.ops.roi_align / RoIAlign were missing
    specs = [InputSpec([None, 3, None, None]), InputSpec([None, 4]), InputSpec([None], "int32")]
    runs = []
    for convert in (False, True):
        net = _seeded(RoIBoxHead())
        f = dy2st.to_static(net, input_spec=specs) if convert else net
        opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
        rng, losses = np.random.default_rng(0), []
        for b, h, w, nums in ((2, 12, 12, [2, 3]), (1, 10, 14, [4])):
            batch = _batch(rng, b, h, w, nums)
            score, delta = f(*[paddle.to_tensor(v) for v in batch])
            loss = F.cross_entropy(score, paddle.to_tensor(np.arange(sum(nums)) % 4)) + \
                F.smooth_l1_loss(delta, paddle.zeros_like(delta))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append((net, f, losses))
    (eager, _, losses), (net, conv, closses) = runs
    assert closses == losses
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    np.testing.assert_allclose(losses, [1.3855046, 1.4013648], rtol=1e-6)  # PaddlePaddle 3.3
    np.testing.assert_allclose(eager.fc6.weight.numpy()[0, :4], [-0.00176281, 0.23777808, -0.17857409, -0.05573219],
                               rtol=1e-4, atol=1e-6)
    assert len(conv.forward.program_cache) == 1
    dy2st.save(conv, str(tmp_path / "rcnn"))
    loaded = dy2st.load(str(tmp_path / "rcnn"))
    batch = [paddle.to_tensor(v) for v in _batch(np.random.default_rng(1), 3, 8, 10, [1, 0, 2])]
    for w, g in zip(eager(*batch), loaded(*batch)):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_roi_align_values_are_paddles_and_its_gradient_is_its_forwards():
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((2, 1, 4, 5)).astype("float32"), stop_gradient=False)
    boxes = paddle.to_tensor([[0.5, 1.0, 4.3, 3.6], [1.2, 0.2, 1.7, 0.9], [-1.5, 0.4, 6.2, 5.3]])
    out = paddle.vision.ops.roi_align(x, boxes, paddle.to_tensor([2, 1], "int32"), output_size=(1, 2))
    # PaddlePaddle 3.3
    np.testing.assert_allclose(out.numpy().reshape(-1), [0.0113219, -0.432369, -0.0256806, -0.0065955, -0.1264322,
                                                         0.2088991], rtol=1e-5, atol=1e-6)
    out.sum().backward()
    # the box under a cell: Paddle's CPU gradient kernel widens it to one cell (its forward does not when
    # aligned), so its gradient there is not its forward's; this one is (the op rows check finite differences)
    assert x.grad.shape == [2, 1, 4, 5]
    with pytest.raises(ValueError, match="boxes_num"):
        paddle.vision.ops.roi_align(x, boxes, paddle.to_tensor([1, 1], "int32"), output_size=2)


class EqualLinear(nn.Layer):
    def __init__(self, in_dim, out_dim, bias_init=0, lr_mul=1, activation=None):
        super().__init__()
        self.weight = self.create_parameter((in_dim, out_dim), default_initializer=nn.initializer.Normal())
        self.bias = self.create_parameter((out_dim, ), default_initializer=nn.initializer.Constant(bias_init))
        self.activation = activation
        self.scale = (1 / math.sqrt(in_dim)) * lr_mul
        self.lr_mul = lr_mul

    def forward(self, input):
        if self.activation:
            out = F.linear(input, self.weight * self.scale)
            return F.leaky_relu(out + self.bias * self.lr_mul, 0.2) * math.sqrt(2)
        return F.linear(input, self.weight * self.scale, bias=self.bias * self.lr_mul)


class ModulatedConv2D(nn.Layer):
    def __init__(self, in_channel, out_channel, kernel_size, style_dim, demodulate=True):
        super().__init__()
        self.kernel_size, self.in_channel, self.out_channel = kernel_size, in_channel, out_channel
        self.scale = 1 / math.sqrt(in_channel * kernel_size * kernel_size)
        self.padding = kernel_size // 2
        self.weight = self.create_parameter((1, out_channel, in_channel, kernel_size, kernel_size),
                                            default_initializer=nn.initializer.Normal())
        self.modulation = EqualLinear(style_dim, in_channel, bias_init=1)
        self.demodulate = demodulate

    def forward(self, input, style):
        batch, in_channel, height, width = input.shape
        style = self.modulation(style).reshape((batch, 1, in_channel, 1, 1))
        weight = self.scale * self.weight * style
        if self.demodulate:
            demod = paddle.rsqrt((weight * weight).sum([2, 3, 4]) + 1e-8)
            weight = weight * demod.reshape((batch, self.out_channel, 1, 1, 1))
        weight = weight.reshape((batch * self.out_channel, in_channel, self.kernel_size, self.kernel_size))
        input = input.reshape((1, batch * in_channel, height, width))
        out = F.conv2d(input, weight, padding=self.padding, groups=batch)
        _, _, height, width = out.shape
        return out.reshape((batch, self.out_channel, height, width))


class StyledConv(nn.Layer):
    def __init__(self, in_channel, out_channel, kernel_size, style_dim):
        super().__init__()
        self.conv = ModulatedConv2D(in_channel, out_channel, kernel_size, style_dim)
        self.noise_weight = self.create_parameter((1, ), default_initializer=nn.initializer.Constant(0.0))
        self.bias = self.create_parameter((1, out_channel, 1, 1), default_initializer=nn.initializer.Constant(0.0))

    def forward(self, input, style):
        out = self.conv(input, style)
        batch, _, height, width = out.shape
        out = out + self.noise_weight * paddle.randn((batch, 1, height, width))
        return F.leaky_relu(out + self.bias, 0.2) * math.sqrt(2)


class MiniStyleGAN(nn.Layer):
    def __init__(self, style_dim=6):
        super().__init__()
        self.style = EqualLinear(style_dim, style_dim, lr_mul=0.01, activation="fused_lrelu")
        self.const = self.create_parameter((1, 4, 4, 4), default_initializer=nn.initializer.Normal())
        self.conv1 = StyledConv(4, 4, 3, style_dim)
        self.to_rgb = ModulatedConv2D(4, 3, 1, style_dim, demodulate=False)

    def forward(self, z):
        w = self.style(z * paddle.rsqrt(paddle.mean(z * z, 1, keepdim=True) + 1e-8))
        out = self.const.tile((z.shape[0], 1, 1, 1))
        out = F.interpolate(self.conv1(out, w), scale_factor=2, mode="bilinear")
        return self.to_rgb(out, w)


def test_stylegan_modulated_conv_grouped_by_a_none_batch_trains_like_eager(tmp_path):
    # F.conv2d(groups=batch) with a None batch raised "static Variable used where Python needs an int"
    runs = []
    for convert in (False, True):
        net = _seeded(MiniStyleGAN())
        f = dy2st.to_static(net, input_spec=[InputSpec([None, 6])]) if convert else net
        opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
        rng, losses = np.random.default_rng(0), []
        for b in (2, 3):
            paddle.seed(b)  # the noise input
            loss = f(paddle.to_tensor(rng.standard_normal((b, 6)).astype("float32"))).abs().mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append((net, f, losses))
    (eager, _, losses), (net, conv, closses) = runs
    assert closses == losses
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    assert len(conv.forward.program_cache) == 1
    dy2st.save(conv, str(tmp_path / "stylegan"))
    loaded = dy2st.load(str(tmp_path / "stylegan"))
    z = paddle.to_tensor(np.random.default_rng(1).standard_normal((4, 6)).astype("float32"))
    paddle.seed(5)
    want = eager(z)
    paddle.seed(5)
    np.testing.assert_array_equal(loaded(z).numpy(), want.numpy())
    assert want.shape == [4, 3, 8, 8]


def _grouped(x, w):
    return F.conv2d(x.reshape([1, -1, 4, 4]), w, groups=x.shape[0])


def test_a_run_time_groups_that_does_not_fit_the_channels_raises_as_eagerly():
    conv = dy2st.to_static(_grouped, input_spec=[InputSpec([None, 3, 4, 4]), InputSpec([None, None, 3, 3])])
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((2, 3, 4, 4)).astype("float32"))
    w = paddle.to_tensor(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    np.testing.assert_array_equal(conv(x, w).numpy(), _grouped(x, w).numpy())
    bad = paddle.to_tensor(rng.standard_normal((4, 2, 3, 3)).astype("float32"))  # 6 channels, groups 2
    with pytest.raises(ValueError, match="expects 4"):
        _grouped(x, bad)
    with pytest.raises(ValueError, match="groups must be the input's channels over the filter's"):
        conv(x, bad)


class SSDDecode(nn.Layer):
    """An SSD head's post-processing: location offsets decoded against the prior boxes (box_coder)."""

    def __init__(self, priors):
        super().__init__()
        self.loc = nn.Linear(4, 8)
        self.register_buffer("priors", paddle.to_tensor(priors))

    def forward(self, feat):
        loc = self.loc(feat).reshape([-1, 2, 4])
        return paddle.vision.ops.box_coder(self.priors, [0.1, 0.1, 0.2, 0.2], loc, "decode_center_size")


class SSDHead(nn.Layer):
    """SSD's head on one feature map: prior boxes of every cell (prior_box) and the predicted offsets
    decoded against them (box_coder), for images of any size."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2D(3, 4, 3, stride=4, padding=1)
        self.loc = nn.Conv2D(4, 4 * 4, 3, padding=1)  # 4 priors per cell

    def forward(self, image):
        feat = self.backbone(image)
        boxes, variances = paddle.vision.ops.prior_box(feat, image, min_sizes=[4.0], max_sizes=[9.0],
                                                       aspect_ratios=[2.0], flip=True, clip=True)
        loc = self.loc(feat).transpose([0, 2, 3, 1]).reshape([0, -1, 4])
        priors, var = boxes.reshape([-1, 4]), variances.reshape([-1, 4])
        return paddle.vision.ops.box_coder(priors, var, loc, "decode_center_size")


def test_box_coder_encodes_and_decodes_as_paddle_and_serves_any_number_of_boxes():
    # paddle.vision.ops.box_coder was missing
    prior = paddle.to_tensor([[1.0, 2.0, 5.0, 6.0], [0.5, 0.5, 3.0, 2.0]])
    enc = paddle.vision.ops.box_coder(prior, [0.1, 0.1, 0.2, 0.2], paddle.to_tensor([[2.0, 1.0, 4.0, 7.0]]),
                                      "encode_center_size", box_normalized=False)
    dec = paddle.vision.ops.box_coder(prior, paddle.to_tensor([[0.1, 0.2, 0.1, 0.2], [0.2, 0.1, 0.2, 0.1]]),
                                      paddle.to_tensor([[[0.5, -0.5, 0.2, 0.1], [1.0, 0.0, -0.3, 0.4]]]),
                                      "decode_center_size")
    # PaddlePaddle 3.3
    np.testing.assert_allclose(enc.numpy(), [[[-1.0, -1.0, -2.554128, 1.682361], [2.142857, 9.0, -0.770753, 5.148097]]],
                               rtol=1e-5)
    np.testing.assert_allclose(dec.numpy(), [[[1.159597, 1.559597, 5.240402, 5.640403],
                                              [1.072794, 0.469392, 3.427206, 2.030608]]], rtol=1e-5)
    net = _seeded(SSDDecode(prior.numpy()))
    net.priors.set_value(prior)  # (the seeding drew over the buffer too)
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, 4])])
    rng = np.random.default_rng(0)
    for n in (3, 1):
        feat = paddle.to_tensor(rng.standard_normal((n, 4)).astype("float32"))
        np.testing.assert_array_equal(conv(feat).numpy(), net(feat).numpy())


def test_ssd_head_with_prior_box_and_box_coder_serves_images_of_any_size(tmp_path):
    # paddle.vision.ops.prior_box was missing
    net = _seeded(SSDHead())
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, 3, None, None])])
    rng = np.random.default_rng(0)
    for b, h, w in ((2, 16, 16), (1, 12, 20)):
        image = paddle.to_tensor(rng.standard_normal((b, 3, h, w)).astype("float32"))
        want = net(image)
        assert want.shape == [b, (h // 4) * (w // 4) * 4, 4]
        np.testing.assert_array_equal(conv(image).numpy(), want.numpy())
    assert len(conv.forward.program_cache) == 1
    boxes, var = paddle.vision.ops.prior_box(paddle.ones([1, 2, 1, 2]), paddle.ones([1, 3, 10, 20]), min_sizes=[4.0],
                                             aspect_ratios=[2.0], flip=True)
    # PaddlePaddle 3.3
    np.testing.assert_allclose(boxes.numpy()[0, 1], [[0.65, 0.3, 0.85, 0.7], [0.608579, 0.358579, 0.891421, 0.641421],
                                                     [0.679289, 0.217157, 0.820711, 0.782843]], rtol=1e-5)
    dy2st.save(conv, str(tmp_path / "ssd"))
    image = paddle.to_tensor(rng.standard_normal((1, 3, 8, 24)).astype("float32"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "ssd"))(image).numpy(), net(image).numpy())
