"""More user code ported by changing imports: an anchor-free detection head whose inference keeps boxes
by a greedy non-maximum suppression written with tensors (a loop over a run-time number of candidates per
image, a tensor ``if`` per candidate, an early exit at ``keep_top_k``, checked against
``paddle.vision.ops.nms``), WeNet / PaddleSpeech's transducer greedy search (a tensor ``while`` emitting
symbols inside a loop over frames), PaddleClas's PP-HGNetV2 blocks and PaddleOCR's SVTR (local and global
mixing, a CTC head). Trained under ``to_static`` they equal eager bitwise and serve any
batch from one Program, saved and loaded."""
import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import seeded
from tests.compat.port_checks import same_training as _same_training


def box_iou(box, boxes):
    """IoU of one box [4] against boxes [N, 4] (x1, y1, x2, y2)."""
    lt = paddle.maximum(box[:2], boxes[:, :2])
    rb = paddle.minimum(box[2:], boxes[:, 2:])
    wh = paddle.clip(rb - lt, min=0)
    inter = wh[:, 0] * wh[:, 1]
    area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])  # noqa: E731
    return inter / (area(box) + area(boxes) - inter)


class FCOSLikeDetector(nn.Layer):
    def __init__(self, score_threshold=0.7, nms_threshold=0.5, keep_top_k=5):
        super().__init__()
        self.score_threshold, self.nms_threshold, self.keep_top_k = score_threshold, nms_threshold, keep_top_k
        self.backbone = nn.Sequential(nn.Conv2D(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2D(8, 8, 3, stride=2, padding=1),
                                      nn.ReLU())
        self.cls_head, self.reg_head = nn.Conv2D(8, 1, 3, padding=1), nn.Conv2D(8, 4, 3, padding=1)

    def head(self, x):
        feat = self.backbone(x)
        b, _, h, w = feat.shape
        # per location: a score and (left, top, right, bottom) distances, in units of the stride
        ys, xs = paddle.meshgrid(paddle.arange(h, dtype="float32"), paddle.arange(w, dtype="float32"))
        centers = paddle.stack([xs, ys, xs, ys], -1).reshape([1, -1, 4]) * 2.0 + 1.0
        ltrb = (F.softplus(self.reg_head(feat)).transpose([0, 2, 3, 1]).reshape([b, -1, 4]) + 0.5) * 2.0
        boxes = centers + ltrb * paddle.to_tensor([-1.0, -1.0, 1.0, 1.0])
        return F.sigmoid(self.cls_head(feat)).reshape([b, -1]), boxes

    def nms(self, boxes, scores):
        order = paddle.argsort(scores, descending=True)
        boxes, scores = paddle.gather(boxes, order), paddle.gather(scores, order)
        n = boxes.shape[0]
        alive = scores > self.score_threshold
        later = paddle.arange(n)
        kept = 0
        for i in range(n):
            if alive[i]:
                kept += 1
                suppress = (box_iou(boxes[i], boxes) > self.nms_threshold) & (later > i)
                alive = alive & paddle.logical_not(suppress)
                if kept == self.keep_top_k:
                    alive = alive & (later <= i)  # the rest are beyond keep_top_k
                    break
        return paddle.masked_select(order, alive)

    def forward(self, images):
        scores, boxes = self.head(images)
        if self.training:
            return scores, boxes
        # detections of every image one after another (as multiclass_nms gives them), and their counts
        out, nums = paddle.zeros([0, 5]), []
        for b in range(images.shape[0]):
            keep = self.nms(boxes[b], scores[b])
            det = paddle.concat([paddle.gather(scores[b], keep).unsqueeze(-1), paddle.gather(boxes[b], keep)], -1)
            out = paddle.concat([out, det])
            nums.append(keep.shape[0])
        return out, paddle.to_tensor(nums)


def _images(rng, n, hw):
    return (rng.standard_normal((n, 3, hw, hw)).astype("float32"),)


def _det_loss(o, b):
    scores, boxes = o
    target = paddle.to_tensor((b[0][:, 0, ::2, ::2].reshape(b[0].shape[0], -1) > 0).astype("float32"))
    return F.binary_cross_entropy(scores, target) + 0.01 * boxes.mean()


def test_detector_with_a_tensor_loop_nms_trains_like_eager_and_keeps_what_paddle_nms_keeps(tmp_path):
    rng = np.random.default_rng(0)
    specs = [InputSpec([None, 3, None, None])]
    _same_training(FCOSLikeDetector, specs, [_images(rng, 2, 8), _images(rng, 1, 6)], _det_loss, tmp_path)
    net = seeded(FCOSLikeDetector(), seed=1).eval()
    f = dy2st.to_static(seeded(FCOSLikeDetector(), seed=1).eval(), input_spec=specs)
    counts = set()
    for n, hw in ((2, 8), (1, 10), (3, 6)):
        x = paddle.to_tensor(_images(rng, n, hw)[0])
        (want, want_n), (got, got_n) = net(x), f(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(got_n.numpy(), want_n.numpy())
        scores, boxes = net.head(x)
        start = 0
        for b, m in enumerate(want_n.numpy()):
            s = scores[b]
            cand = paddle.nonzero(s > net.score_threshold).flatten()
            ref = paddle.vision.ops.nms(paddle.gather(boxes[b], cand), net.nms_threshold, paddle.gather(s, cand))
            ref = paddle.gather(cand, ref)[:net.keep_top_k]
            np.testing.assert_array_equal(got.numpy()[start:start + m, 0], paddle.gather(s, ref).numpy())
            start += m
            counts.add(int(m))
    assert len(counts) > 1 and net.keep_top_k in counts
    assert len(f.forward.program_cache) == 1


def _counts(x):
    nums, sizes = [], []
    for i in range(x.shape[0]):
        nums.append((x[i] > 0).sum())  # 0-d tensors
        sizes.append(paddle.nonzero(x[i] > 0).shape[0])  # Python ints eagerly
    return paddle.to_tensor(nums), paddle.to_tensor(sizes, dtype="float32")


def test_to_tensor_of_a_list_built_in_a_tensor_loop_stacks_its_items_as_eagerly():
    f = dy2st.to_static(_counts, input_spec=[InputSpec([None, 3])])
    rng = np.random.default_rng(2)
    for n in (1, 4, 2):
        x = paddle.to_tensor(rng.standard_normal((n, 3)).astype("float32"))
        for want, got in zip(_counts(x), f(x)):
            assert (got.dtype, got.shape, got.stop_gradient) == (want.dtype, want.shape, want.stop_gradient)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(f.program_cache) == 1


class Transducer(nn.Layer):
    """A small RNN-T: LSTM encoder, LSTM-cell predictor, additive joint network. Training scores the
    joint lattice along a fixed alignment (each label at its own frame); inference is WeNet /
    PaddleSpeech's ``basic_greedy_search``: up to ``n_steps`` symbols per frame, the predictor stepped
    only after a non-blank, its state kept on a blank."""

    def __init__(self, feat=4, d=8, vocab=5, blank=0, n_steps=3):
        super().__init__()
        self.blank, self.n_steps = blank, n_steps
        self.encoder = nn.LSTM(feat, d)
        self.embed = nn.Embedding(vocab, d)
        self.predictor = nn.LSTMCell(d, d)
        self.enc_ffn, self.pred_ffn = nn.Linear(d, d), nn.Linear(d, d, bias_attr=False)
        self.ffn_out = nn.Linear(d, vocab)

    def joint(self, enc_out, pred_out):
        return self.ffn_out(paddle.tanh(self.enc_ffn(enc_out) + self.pred_ffn(pred_out)))

    def forward_step(self, token, cache):
        out, (h, c) = self.predictor(self.embed(token), cache)
        return out, (h, c)

    def forward(self, feats, labels):
        encoder_out, _ = self.encoder(feats)
        if self.training:
            # the predictor over blank + labels, every frame against every prefix: [B, T, U + 1, V]
            prefix = paddle.concat([paddle.full([labels.shape[0], 1], self.blank, "int64"), labels], 1)
            cache = self.predictor.get_initial_states(batch_ref=labels, shape=self.predictor.state_shape)
            pred = []
            for u in range(prefix.shape[1]):
                out, cache = self.forward_step(prefix[:, u], cache)
                pred.append(out)
            pred = paddle.stack(pred, 1)
            lattice = F.log_softmax(self.joint(encoder_out.unsqueeze(2), pred.unsqueeze(1)), -1)
            path = lattice[:, :labels.shape[1], :labels.shape[1]]  # label u emitted at frame u
            emit = paddle.take_along_axis(paddle.diagonal(path, axis1=1, axis2=2).transpose([0, 2, 1]),
                                          labels.unsqueeze(-1), -1)
            return -emit.mean() - lattice[:, :, -1, self.blank].mean()
        return self.basic_greedy_search(encoder_out, encoder_out.shape[1])

    def basic_greedy_search(self, encoder_out, encoder_out_lens):
        pred_input_step = paddle.full([1], self.blank, "int64")
        cache = self.predictor.get_initial_states(batch_ref=encoder_out, shape=self.predictor.state_shape)
        t = 0
        hyps = []
        # the first step taken before the loop (WeNet: `pred_out_step = None` and `prev_out_nblk = True`):
        # a tensor `if` needs a value for it in either branch
        pred_out_step, new_cache = self.forward_step(pred_input_step, cache)
        prev_out_nblk = False
        per_frame_noblk = 0
        while t < encoder_out_lens:
            encoder_out_step = encoder_out[:, t]
            if prev_out_nblk:
                pred_out_step, new_cache = self.forward_step(pred_input_step, cache)
            joint_out_probs = F.log_softmax(self.joint(encoder_out_step, pred_out_step), -1)
            joint_out_max = joint_out_probs.argmax(-1).squeeze()
            if joint_out_max != self.blank:
                hyps.append(joint_out_max.item())
                prev_out_nblk = True
                per_frame_noblk = per_frame_noblk + 1
                pred_input_step = joint_out_max.reshape([1])
                cache = new_cache
            if joint_out_max == self.blank or per_frame_noblk >= self.n_steps:
                if joint_out_max == self.blank:
                    prev_out_nblk = False
                t = t + 1
                per_frame_noblk = 0
        return paddle.to_tensor(hyps, dtype="int64")


def _utterance(rng, t, u):
    return rng.standard_normal((1, t, 4)).astype("float32"), rng.integers(1, 5, (1, u)).astype("int64")


def test_transducer_trains_like_eager_and_its_greedy_search_matches_eager(tmp_path):
    rng = np.random.default_rng(3)
    specs = [InputSpec([1, None, 4]), InputSpec([1, None], "int64")]
    _same_training(Transducer, specs, [_utterance(rng, 5, 3), _utterance(rng, 6, 2)], lambda o, b: o, tmp_path)
    lengths = set()
    for blank_bias in (3.0, 5.0):  # blanks now and then, and so often that nothing is emitted
        nets = [seeded(Transducer(), seed=4, scale=1.0).eval() for _ in range(2)]
        for n in nets:
            n.ffn_out.bias.set_value(n.ffn_out.bias.numpy() + np.float32(blank_bias) * (np.arange(5) == 0))
        net, f = nets[0], dy2st.to_static(nets[1], input_spec=specs)
        for t in (4, 7, 1):
            x = [paddle.to_tensor(v) for v in _utterance(rng, t, 2)]
            want, got = net(*x), f(*x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            lengths.add(want.shape[0])
        assert len(f.forward.program_cache) == 1
    assert len(lengths) > 2 and 0 in lengths


class LearnableAffineBlock(nn.Layer):
    def __init__(self, scale_value=1.0, bias_value=0.0):
        super().__init__()
        self.scale = self.create_parameter(shape=[1], default_initializer=nn.initializer.Constant(value=scale_value))
        self.bias = self.create_parameter(shape=[1], default_initializer=nn.initializer.Constant(value=bias_value))

    def forward(self, x):
        return self.scale * x + self.bias


class HGConvBNAct(nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, groups=1, use_act=True, use_lab=True):
        super().__init__()
        self.use_act, self.use_lab = use_act, use_lab
        self.conv = nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding=(kernel_size - 1) // 2,
                              groups=groups, bias_attr=False)
        self.bn = nn.BatchNorm2D(out_channels)
        if self.use_act:
            self.act = nn.ReLU()
            if self.use_lab:
                self.lab = LearnableAffineBlock()

    def forward(self, x):
        x = self.bn(self.conv(x))
        if self.use_act:
            x = self.act(x)
            if self.use_lab:
                x = self.lab(x)
        return x


class HGV2Block(nn.Layer):
    """PaddleClas's PP-HGNetV2 block: light (1x1 then depthwise) convs chained, every output concatenated
    and squeezed back, with an identity shortcut when shapes allow."""

    def __init__(self, in_channels=4, mid_channels=4, out_channels=4, layer_num=3, identity=True):
        super().__init__()
        self.identity = identity
        self.layers = nn.LayerList()
        for i in range(layer_num):
            self.layers.append(nn.Sequential(
                HGConvBNAct(in_channels if i == 0 else mid_channels, mid_channels, 1, use_act=False),
                HGConvBNAct(mid_channels, mid_channels, 3, groups=mid_channels)))
        total = in_channels + layer_num * mid_channels
        self.aggregation_squeeze_conv = HGConvBNAct(total, out_channels // 2, 1)
        self.aggregation_excitation_conv = HGConvBNAct(out_channels // 2, out_channels, 1)

    def forward(self, x):
        identity = x
        output = [x]
        for layer in self.layers:
            x = layer(x)
            output.append(x)
        x = paddle.concat(output, axis=1)
        x = self.aggregation_excitation_conv(self.aggregation_squeeze_conv(x))
        if self.identity:
            x += identity
        return x


class HGNetV2Tiny(nn.Layer):
    def __init__(self, classes=3):
        super().__init__()
        self.stem = HGConvBNAct(3, 4, 3, stride=2)
        self.pool = nn.MaxPool2D(kernel_size=2, stride=2, ceil_mode=True)  # odd sizes keep their last row
        self.stage = nn.Sequential(HGV2Block(), HGV2Block())
        self.avg_pool = nn.AdaptiveAvgPool2D(1)
        self.last_conv = nn.Conv2D(4, 8, 1, bias_attr=False)
        self.act, self.lab = nn.ReLU(), LearnableAffineBlock()
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        x = self.stage(self.pool(self.stem(x)))
        x = self.lab(self.act(self.last_conv(self.avg_pool(x))))
        return self.fc(paddle.flatten(x, start_axis=1, stop_axis=-1))


def test_pp_hgnetv2_blocks_train_like_eager_for_any_image_size(tmp_path):
    rng = np.random.default_rng(5)
    batches = [(rng.standard_normal((n, 3, hw, hw)).astype("float32"),) for n, hw in ((2, 10), (3, 7), (1, 12))]
    label = lambda b: paddle.to_tensor((b[0].mean((1, 2, 3)) > 0).astype("int64"))  # noqa: E731
    _same_training(HGNetV2Tiny, [InputSpec([None, 3, None, None])], batches,
                   lambda o, b: F.cross_entropy(o, label(b)), tmp_path)


class SVTRAttention(nn.Layer):
    """PaddleOCR's SVTR mixer: global attention, or local attention masked to a window (the mask built
    eagerly in ``__init__`` by item writes into a tensor)."""

    def __init__(self, dim, num_heads=2, mixer="Global", HW=None, local_k=(3, 3)):
        super().__init__()
        self.num_heads, self.C, self.mixer = num_heads, dim, mixer
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias_attr=False)
        self.proj = nn.Linear(dim, dim)
        if mixer == "Local" and HW is not None:
            H, W = HW
            hk, wk = local_k
            mask = paddle.ones([H * W, H + hk - 1, W + wk - 1], dtype="float32")
            for h in range(0, H):
                for w in range(0, W):
                    mask[h * W + w, h:h + hk, w:w + wk] = 0.0
            mask_paddle = mask[:, hk // 2:H + hk // 2, wk // 2:W + wk // 2].flatten(1)
            mask_inf = paddle.full([H * W, H * W], "-inf", dtype="float32")
            mask = paddle.where(mask_paddle < 1, mask_paddle, mask_inf)
            self.mask = mask.unsqueeze([0, 1])

    def forward(self, x):
        qkv = self.qkv(x).reshape((0, -1, 3, self.num_heads, self.C // self.num_heads)).transpose((2, 0, 3, 1, 4))
        q, k, v = qkv[0] * self.scale, qkv[1], qkv[2]
        attn = q.matmul(k.transpose((0, 1, 3, 2)))
        if self.mixer == "Local":
            attn += self.mask
        attn = nn.functional.softmax(attn, axis=-1)
        return self.proj((attn.matmul(v)).transpose((0, 2, 1, 3)).reshape((0, -1, self.C)))


class SVTRBlock(nn.Layer):
    def __init__(self, dim, mixer, HW):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim, epsilon=1e-6), nn.LayerNorm(dim, epsilon=1e-6)
        self.mixer = SVTRAttention(dim, mixer=mixer, HW=HW)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = self.norm1(x + self.mixer(x))
        return self.norm2(x + self.mlp(x))


class SVTRTiny(nn.Layer):
    """Patch embedding (two stride-2 convs), local then global mixing blocks, the last stage pooled to
    ``out_char_num`` columns with hardswish, and a CTC head."""

    def __init__(self, dim=8, img_size=(8, 32), out_char_num=6, classes=5):
        super().__init__()
        self.HW = (img_size[0] // 4, img_size[1] // 4)
        self.patch_embed = nn.Sequential(nn.Conv2D(3, dim // 2, 3, 2, 1), nn.BatchNorm2D(dim // 2), nn.GELU(),
                                         nn.Conv2D(dim // 2, dim, 3, 2, 1), nn.BatchNorm2D(dim), nn.GELU())
        self.blocks = nn.LayerList([SVTRBlock(dim, m, self.HW) for m in ("Local", "Global")])
        self.avg_pool = nn.AdaptiveAvgPool2D([1, out_char_num])
        self.last_conv = nn.Conv2D(dim, 12, 1, bias_attr=False)
        self.head = nn.Linear(12, classes)

    def forward(self, x, labels, label_lengths):
        x = self.patch_embed(x).flatten(2).transpose([0, 2, 1])
        for blk in self.blocks:
            x = blk(x)
        x = x.transpose([0, 2, 1]).reshape([0, -1, self.HW[0], self.HW[1]])
        x = F.hardswish(self.last_conv(self.avg_pool(x)))
        logits = self.head(x.squeeze(2).transpose([0, 2, 1]))  # [B, T, classes]
        if not self.training:
            return F.softmax(logits, axis=2).argmax(-1)  # CTCLabelDecode's best path, before its collapse
        log_probs = F.log_softmax(logits, -1).transpose([1, 0, 2])
        t = paddle.full([logits.shape[0]], logits.shape[1], "int64")
        return F.ctc_loss(log_probs, labels, t, label_lengths, blank=0, reduction="mean")


def test_svtr_local_and_global_mixing_trains_like_eager(tmp_path):
    rng = np.random.default_rng(6)
    batches = [(rng.standard_normal((n, 3, 8, 32)).astype("float32"), rng.integers(1, 5, (n, 3)).astype("int32"),
                rng.integers(1, 4, n).astype("int64")) for n in (2, 3)]
    _same_training(SVTRTiny, [InputSpec([None, 3, 8, 32]), InputSpec([None, 3], "int32"), InputSpec([None], "int64")],
                   batches, lambda o, b: o, tmp_path)
