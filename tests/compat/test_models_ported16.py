"""More user code ported by changing imports: PaddleOCR's DBNet head trained with its balanced loss
(``int(positive.sum())``, ``min`` of a tensor and a number, a tensor ``if`` and a sort sliced to a
run-time count), PaddleSeg's DeepLabV3+ (an ASPP of dilated separable convs and an image pooling
branch resized to ``paddle.shape(x)[2:]``), a PaddleSpeech Conformer encoder layer behind a
``Conv2dSubsampling4`` whose padding mask comes from the lengths (``int(lengths.max())``,
``masked_fill``), and wav2vec2's convolutional feature extractor whose attention mask is written by
index tensors from the output lengths. Trained under ``to_static`` they equal eager bitwise and serve
any batch (and length) from one Program, saved and loaded."""
import math

import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import ParamAttr, nn
from runtime.static import InputSpec
from tests.compat.port_checks import same_training as _same_training


class DBHeadBranch(nn.Layer):
    def __init__(self, in_channels):
        super().__init__()
        c = in_channels // 4
        self.conv1 = nn.Conv2D(in_channels, c, 3, padding=1, weight_attr=ParamAttr(), bias_attr=False)
        self.conv_bn1 = nn.BatchNorm(c, param_attr=ParamAttr(initializer=nn.initializer.Constant(1.0)),
                                     bias_attr=ParamAttr(initializer=nn.initializer.Constant(1e-4)), act="relu")
        self.conv2 = nn.Conv2DTranspose(c, c, 2, stride=2, weight_attr=ParamAttr(initializer=nn.initializer.KaimingUniform()))
        self.conv_bn2 = nn.BatchNorm(c, act="relu")
        self.conv3 = nn.Conv2DTranspose(c, 1, 2, stride=2)

    def forward(self, x):
        return F.sigmoid(self.conv3(self.conv_bn2(self.conv2(self.conv_bn1(self.conv1(x))))))


class DBHead(nn.Layer):
    def __init__(self, in_channels=8, k=50):
        super().__init__()
        self.k = k
        self.binarize = DBHeadBranch(in_channels)
        self.thresh = DBHeadBranch(in_channels)

    def step_function(self, x, y):
        return paddle.reciprocal(1 + paddle.exp(-self.k * (x - y)))

    def forward(self, x):
        shrink_maps = self.binarize(x)
        if not self.training:
            return {"maps": shrink_maps}
        threshold_maps = self.thresh(x)
        binary_maps = self.step_function(shrink_maps, threshold_maps)
        return {"maps": paddle.concat([shrink_maps, threshold_maps, binary_maps], axis=1)}


class BalanceLoss(nn.Layer):
    def __init__(self, negative_ratio=3, eps=1e-6):
        super().__init__()
        self.negative_ratio, self.eps = negative_ratio, eps

    def forward(self, pred, gt, mask):
        positive = gt * mask
        negative = (1 - gt) * mask
        positive_count = int(positive.sum())
        negative_count = int(min(negative.sum(), positive_count * self.negative_ratio))
        loss = F.binary_cross_entropy(pred, gt, reduction="none")
        positive_loss = positive * loss
        negative_loss = negative * loss
        negative_loss = paddle.reshape(negative_loss, shape=[-1])
        if negative_count > 0:
            sort_loss = negative_loss.sort(descending=True)
            negative_loss = sort_loss[:negative_count]
            balance_loss = (positive_loss.sum() + negative_loss.sum()) / (positive_count + negative_count + self.eps)
        else:
            balance_loss = positive_loss.sum() / (positive_count + self.eps)
        return balance_loss


class DBNet(nn.Layer):
    """The head and PaddleOCR's DBLoss (balanced BCE on the shrink map, masked L1 on the threshold
    map, dice on the binary map) in one converted forward."""

    def __init__(self):
        super().__init__()
        self.head = DBHead()
        self.bce_loss = BalanceLoss()

    def forward(self, x, gt, mask, thr_gt, thr_mask):
        pred = self.head(x)["maps"]
        if not self.training:
            return pred
        shrink, thresh, binary = pred[:, 0, :, :], pred[:, 1, :, :], pred[:, 2, :, :]
        loss_shrink = self.bce_loss(shrink, gt, mask)
        loss_thr = (paddle.abs(thresh - thr_gt) * thr_mask).sum() / (thr_mask.sum() + 1e-6)
        inter = paddle.sum(binary * gt * mask)
        union = paddle.sum(binary * mask) + paddle.sum(gt * mask) + 1e-6
        loss_bin = 1 - 2.0 * inter / union
        return 5 * loss_shrink + 10 * loss_thr + loss_bin


def _db_batch(rng, b, hw, positives=True):
    gt = (rng.random((b, 4 * hw, 4 * hw)) < (0.2 if positives else 0.0)).astype("float32")
    return (rng.standard_normal((b, 8, hw, hw)).astype("float32"), gt,
            (rng.random(gt.shape) < 0.9).astype("float32"), rng.random(gt.shape).astype("float32"),
            (rng.random(gt.shape) < 0.5).astype("float32"))


def test_dbnet_head_with_its_balanced_loss_trains_like_eager_for_any_batch_and_size(tmp_path):
    rng = np.random.default_rng(0)
    # the last batch has no positive pixel: the balanced loss takes its `else` branch
    batches = [_db_batch(rng, 2, 3), _db_batch(rng, 3, 2), _db_batch(rng, 2, 2, positives=False)]
    specs = [InputSpec([None, 8, None, None])] + [InputSpec([None, None, None])] * 4
    losses = _same_training(DBNet, specs, batches, lambda o, b: o, tmp_path)
    assert len(set(losses)) == 3


class ConvBNReLU(nn.Layer):
    def __init__(self, cin, cout, k, padding="same", **kw):
        super().__init__()
        self._conv = nn.Conv2D(cin, cout, k, padding=padding, **kw)
        self._batch_norm = nn.BatchNorm2D(cout)

    def forward(self, x):
        return F.relu(self._batch_norm(self._conv(x)))


class SeparableConvBNReLU(nn.Layer):
    def __init__(self, cin, cout, k, **kw):
        super().__init__()
        self.depthwise_conv = ConvBNReLU(cin, cin, k, groups=cin, **kw)  # PaddleSeg's own order
        self.piontwise_conv = ConvBNReLU(cin, cout, 1)

    def forward(self, x):
        return self.piontwise_conv(self.depthwise_conv(x))


class ASPPModule(nn.Layer):
    def __init__(self, aspp_ratios, cin, cout, align_corners, use_sep_conv=True, image_pooling=True):
        super().__init__()
        self.align_corners = align_corners
        self.aspp_blocks = nn.LayerList()
        for ratio in aspp_ratios:
            if use_sep_conv and ratio > 1:
                conv_func = SeparableConvBNReLU
            else:
                conv_func = ConvBNReLU
            self.aspp_blocks.append(conv_func(cin, cout, 1 if ratio == 1 else 3, dilation=ratio,
                                              padding=0 if ratio == 1 else ratio))
        out_size = len(self.aspp_blocks)
        if image_pooling:
            self.global_avg_pool = nn.Sequential(nn.AdaptiveAvgPool2D(output_size=(1, 1)), ConvBNReLU(cin, cout, 1))
            out_size += 1
        self.image_pooling = image_pooling
        self.conv_bn_relu = ConvBNReLU(cout * out_size, cout, 1)

    def forward(self, x):
        outputs = []
        interpolate_shape = paddle.shape(x)[2:]
        for block in self.aspp_blocks:
            y = block(x)
            outputs.append(y)
        if self.image_pooling:
            img_avg = self.global_avg_pool(x)
            img_avg = F.interpolate(img_avg, interpolate_shape, mode="bilinear", align_corners=self.align_corners)
            outputs.append(img_avg)
        x = paddle.concat(outputs, axis=1)
        return self.conv_bn_relu(x)


class DeepLabV3PHead(nn.Layer):
    def __init__(self, num_classes=3, align_corners=False):
        super().__init__()
        self.backbone_low = ConvBNReLU(3, 4, 3, stride=2)
        self.backbone_high = ConvBNReLU(4, 6, 3, stride=2)
        self.aspp = ASPPModule((1, 2, 3), 6, 4, align_corners)
        self.conv_bn_relu1 = ConvBNReLU(4, 2, 1)
        self.conv_bn_relu2 = SeparableConvBNReLU(6, 4, 3)
        self.conv = nn.Conv2D(4, num_classes, 1)
        self.align_corners = align_corners

    def forward(self, img):
        low_level_feat = self.backbone_low(img)
        x = self.aspp(self.backbone_high(low_level_feat))
        low_level_feat = self.conv_bn_relu1(low_level_feat)
        x = F.interpolate(x, paddle.shape(low_level_feat)[2:], mode="bilinear", align_corners=self.align_corners)
        x = paddle.concat([x, low_level_feat], axis=1)
        logit = self.conv(self.conv_bn_relu2(x))
        return [F.interpolate(logit, paddle.shape(img)[2:], mode="bilinear", align_corners=self.align_corners)]


@pytest.mark.parametrize("hw", [(8, 8), (7, 10)])
def test_deeplabv3p_aspp_with_image_pooling_trains_like_eager_for_any_image_size(tmp_path, hw):
    rng = np.random.default_rng(sum(hw))
    batches = [(rng.standard_normal((b, 3) + hw).astype("float32"),) for b in (2, 3)]
    label = lambda b: paddle.to_tensor((b[0].sum(1) > 0).astype("int64"))  # noqa: E731
    _same_training(DeepLabV3PHead, [InputSpec([None, 3, None, None])], batches,
                   lambda o, b: F.cross_entropy(o[0], label(b), axis=1), tmp_path)


def make_pad_mask(lengths):
    batch_size = int(lengths.shape[0])
    max_len = int(lengths.max())
    seq_range = paddle.arange(0, max_len, dtype=paddle.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand([batch_size, max_len])
    seq_length_expand = lengths.unsqueeze(-1)
    return seq_range_expand >= seq_length_expand


class Conv2dSubsampling4(nn.Layer):
    def __init__(self, idim, odim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2D(1, odim, 3, 2), nn.ReLU(), nn.Conv2D(odim, odim, 3, 2), nn.ReLU())
        self.out = nn.Sequential(nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim))
        pe = np.zeros((32, odim), "float32")
        pos = np.arange(32)[:, None]
        div = np.exp(np.arange(0, odim, 2) * -(np.log(10000.0) / odim))
        pe[:, 0::2], pe[:, 1::2] = np.sin(pos * div), np.cos(pos * div)
        self.register_buffer("pe", paddle.to_tensor(pe[None]))
        self.xscale = float(np.sqrt(odim))

    def forward(self, x, x_mask, offset: int = 0):
        x = x.unsqueeze(1)
        x = self.conv(x)
        b, c, t, f = x.shape
        x = self.out(x.transpose([0, 2, 1, 3]).reshape([b, -1, c * f]))
        x = x * self.xscale + self.pe[:, offset:offset + x.shape[1]]
        return x, x_mask[:, :, :-2:2][:, :, :-2:2]


class MultiHeadedAttention(nn.Layer):
    def __init__(self, n_head, n_feat):
        super().__init__()
        self.d_k, self.h = n_feat // n_head, n_head
        self.linear_q, self.linear_k = nn.Linear(n_feat, n_feat), nn.Linear(n_feat, n_feat)
        self.linear_v, self.linear_out = nn.Linear(n_feat, n_feat), nn.Linear(n_feat, n_feat)

    def forward(self, query, key, value, mask):
        n_batch = query.shape[0]
        q = self.linear_q(query).reshape([n_batch, -1, self.h, self.d_k]).transpose([0, 2, 1, 3])
        k = self.linear_k(key).reshape([n_batch, -1, self.h, self.d_k]).transpose([0, 2, 1, 3])
        v = self.linear_v(value).reshape([n_batch, -1, self.h, self.d_k]).transpose([0, 2, 1, 3])
        scores = paddle.matmul(q, k, transpose_y=True) / math.sqrt(self.d_k)
        mask = mask.unsqueeze(1).equal(paddle.to_tensor(0, dtype=paddle.bool))
        scores = scores.masked_fill(mask, -float("inf"))
        attn = paddle.nn.functional.softmax(scores, axis=-1).masked_fill(mask, 0.0)
        x = paddle.matmul(attn, v).transpose([0, 2, 1, 3]).reshape([n_batch, -1, self.h * self.d_k])
        return self.linear_out(x)


class ConvolutionModule(nn.Layer):
    def __init__(self, channels, kernel_size=3):
        super().__init__()
        self.pointwise_conv1 = nn.Conv1D(channels, 2 * channels, 1)
        self.depthwise_conv = nn.Conv1D(channels, channels, kernel_size, padding=(kernel_size - 1) // 2,
                                        groups=channels)
        self.norm = nn.BatchNorm1D(channels)
        self.pointwise_conv2 = nn.Conv1D(channels, channels, 1)
        self.activation = nn.Swish()

    def forward(self, x, mask_pad):
        x = x.transpose([0, 2, 1])
        x = x.masked_fill(mask_pad.logical_not(), 0.0)
        x = nn.functional.glu(self.pointwise_conv1(x), axis=1)
        x = self.pointwise_conv2(self.activation(self.norm(self.depthwise_conv(x))))
        x = x.masked_fill(mask_pad.logical_not(), 0.0)
        return x.transpose([0, 2, 1])


class ConformerEncoderLayer(nn.Layer):
    def __init__(self, size=8):
        super().__init__()
        ff = lambda: nn.Sequential(nn.Linear(size, 2 * size), nn.Swish(), nn.Linear(2 * size, size))  # noqa: E731
        self.feed_forward_macaron, self.feed_forward = ff(), ff()
        self.self_attn = MultiHeadedAttention(2, size)
        self.conv_module = ConvolutionModule(size)
        self.norm_ff_macaron, self.norm_ff = nn.LayerNorm(size), nn.LayerNorm(size)
        self.norm_mha, self.norm_conv, self.norm_final = nn.LayerNorm(size), nn.LayerNorm(size), nn.LayerNorm(size)
        self.ff_scale = 0.5

    def forward(self, x, mask, mask_pad):
        x = x + self.ff_scale * self.feed_forward_macaron(self.norm_ff_macaron(x))
        y = self.norm_mha(x)
        x = x + self.self_attn(y, y, y, mask)
        x = x + self.conv_module(self.norm_conv(x), mask_pad)
        x = x + self.ff_scale * self.feed_forward(self.norm_ff(x))
        return self.norm_final(x)


class ConformerCTC(nn.Layer):
    def __init__(self, idim=12, size=8, vocab=5):
        super().__init__()
        self.embed = Conv2dSubsampling4(idim, size)
        self.encoders = nn.LayerList([ConformerEncoderLayer(size) for _ in range(2)])
        self.ctc_lo = nn.Linear(size, vocab)
        self.ctc_loss = nn.CTCLoss(blank=0, reduction="sum")

    def forward(self, xs, xs_lens, ys, ys_lens):
        masks = make_pad_mask(xs_lens).logical_not().unsqueeze(1)  # (B, 1, T)
        xs, masks = self.embed(xs, masks)
        for layer in self.encoders:
            xs = layer(xs, masks, masks)
        encoder_out_lens = masks.squeeze(1).sum(1)
        ys_hat = F.log_softmax(self.ctc_lo(xs), axis=2).transpose([1, 0, 2])
        loss = self.ctc_loss(ys_hat, ys, encoder_out_lens, ys_lens) / ys_hat.shape[1]
        return loss, ys_hat


def _asr_batch(rng, b, t, lab=2):
    lens = rng.integers(t - 4, t + 1, b)
    lens[0] = t  # the batch is padded to its longest utterance
    x = rng.standard_normal((b, t, 12)).astype("float32") * (np.arange(t)[None, :, None] < lens[:, None, None])
    return x, lens.astype("int64"), rng.integers(1, 5, (b, lab)).astype("int32"), np.full(b, lab, "int64")


def test_conformer_ctc_with_length_masks_trains_like_eager_for_any_batch_and_length(tmp_path):
    rng = np.random.default_rng(4)
    batches = [_asr_batch(rng, 2, 17), _asr_batch(rng, 3, 21), _asr_batch(rng, 2, 15)]
    specs = [InputSpec([None, None, 12]), InputSpec([None], "int64"), InputSpec([None, 2], "int32"),
             InputSpec([None], "int64")]
    _same_training(ConformerCTC, specs, batches, lambda o, b: o[0], tmp_path)


class Wav2Vec2GroupNormConvLayer(nn.Layer):
    def __init__(self, cin, cout, k, s, group_norm):
        super().__init__()
        self.conv = nn.Conv1D(cin, cout, kernel_size=k, stride=s, bias_attr=False)
        self.layer_norm = nn.GroupNorm(num_groups=cout, num_channels=cout) if group_norm else None
        self.activation = nn.GELU()

    def forward(self, hidden_states):
        hidden_states = self.conv(hidden_states)
        if self.layer_norm is not None:
            hidden_states = self.layer_norm(hidden_states)
        return self.activation(hidden_states)


class Wav2Vec2Classifier(nn.Layer):
    conv_dim, conv_kernel, conv_stride = (6, 6, 6), (5, 3, 2), (3, 2, 2)

    def __init__(self, hidden=8, num_pos=4, num_labels=3):
        super().__init__()
        dims = (1,) + self.conv_dim
        self.conv_layers = nn.LayerList([Wav2Vec2GroupNormConvLayer(dims[i], dims[i + 1], k, s, i == 0)
                                         for i, (k, s) in enumerate(zip(self.conv_kernel, self.conv_stride))])
        self.layer_norm = nn.LayerNorm(self.conv_dim[-1])
        self.projection = nn.Linear(self.conv_dim[-1], hidden)
        self.pos_conv = nn.utils.weight_norm(nn.Conv1D(hidden, hidden, num_pos, padding=num_pos // 2, groups=2),
                                             name="weight", dim=2)
        self.num_pad_remove = 1 if num_pos % 2 == 0 else 0
        self.projector = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, num_labels)

    def _get_feat_extract_output_lengths(self, input_lengths):
        def _conv_out_length(input_length, kernel_size, stride):
            return paddle.floor_divide(input_length - kernel_size, paddle.to_tensor(stride)) + 1
        for kernel_size, stride in zip(self.conv_kernel, self.conv_stride):
            input_lengths = _conv_out_length(input_lengths, kernel_size, stride)
        return input_lengths

    def _get_feature_vector_attention_mask(self, feature_vector_length, attention_mask):
        output_lengths = self._get_feat_extract_output_lengths(attention_mask.sum(-1)).astype("int64")
        batch_size = attention_mask.shape[0]
        attention_mask = paddle.zeros((batch_size, feature_vector_length), dtype=attention_mask.dtype)
        attention_mask[(paddle.arange(attention_mask.shape[0]), output_lengths - 1)] = 1
        return attention_mask.flip([-1]).cumsum(-1).flip([-1]).astype("bool")

    def forward(self, input_values, attention_mask):
        hidden_states = input_values[:, None]
        for conv_layer in self.conv_layers:
            hidden_states = conv_layer(hidden_states)
        hidden_states = self.projection(self.layer_norm(hidden_states.transpose([0, 2, 1])))
        pos = self.pos_conv(hidden_states.transpose([0, 2, 1]))
        if self.num_pad_remove > 0:
            pos = pos[:, :, :-self.num_pad_remove]
        hidden_states = hidden_states + F.gelu(pos).transpose([0, 2, 1])
        hidden_states = self.projector(hidden_states)
        padding_mask = self._get_feature_vector_attention_mask(hidden_states.shape[1], attention_mask)
        hidden_states[~padding_mask] = 0.0
        pooled_output = hidden_states.sum(axis=1) / padding_mask.sum(axis=1).reshape([-1, 1]).astype("float32")
        return self.classifier(pooled_output)


def _wave_batch(rng, b, n):
    lens = rng.integers(n // 2, n + 1, b)
    lens[0] = n
    mask = (np.arange(n)[None] < lens[:, None]).astype("int64")
    return (rng.standard_normal((b, n)) * mask).astype("float32"), mask


def test_wav2vec2_feature_extractor_and_masked_pooling_train_like_eager_for_any_length(tmp_path):
    rng = np.random.default_rng(5)
    batches = [_wave_batch(rng, 2, 60), _wave_batch(rng, 3, 47), _wave_batch(rng, 2, 75)]
    _same_training(Wav2Vec2Classifier, [InputSpec([None, None]), InputSpec([None, None], "int64")], batches,
                   lambda o, b: F.cross_entropy(o, paddle.to_tensor(b[1].sum(1) % 3)), tmp_path)
