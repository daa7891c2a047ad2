"""More user code ported by changing imports: MoCo's key queue (a buffer written by slices in
``forward``), ERNIE-style padding masks with a pooler, PP-LCNet / ShuffleNetV2 / HRNet blocks and
DIN / DeepFM CTR models, each converted with ``None`` dims and trained like eager (bitwise), with
outputs PaddlePaddle 3.3 gives for the same weights."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec


def _seeded(net, seed=0):
    """Weights drawn in sorted-name order (Paddle's scratch script draws them the same way)."""
    rng = np.random.default_rng(seed)
    sd = net.state_dict()
    draws = {k: rng.standard_normal(sd[k].shape) * 0.3 for k in sorted(sd) if "float" in str(sd[k].dtype)}
    net.set_state_dict({k: paddle.to_tensor((np.abs(draws[k]) + 0.5 if "variance" in k else draws[k]).astype("float32"))
                        if k in draws else v for k, v in sd.items()})
    return net


def _pair(cls):
    eager = _seeded(cls())
    net = cls()
    net.set_state_dict(eager.state_dict())
    return eager, net


class MoCo(nn.Layer):
    """MoCo v2's momentum key encoder and queue of negatives (PaddleClas / PASSL)."""

    def __init__(self, dim=4, K=6, m=0.9, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, dim))
        self.encoder_k = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, dim))
        for pk in self.encoder_k.parameters():
            pk.stop_gradient = True
        queue = np.random.default_rng(0).standard_normal((dim, K)).astype("float32")
        self.register_buffer("queue", F.normalize(paddle.to_tensor(queue), axis=0))
        self.register_buffer("queue_ptr", paddle.zeros([1], "int64"))

    @paddle.no_grad()
    def _momentum_update_key_encoder(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            paddle.assign(pk * self.m + pq * (1.0 - self.m), pk)

    @paddle.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr[0])
        self.queue[:, ptr:ptr + batch_size] = keys.transpose([1, 0])
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), axis=1)
        with paddle.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), axis=1)
        l_pos = paddle.sum(q * k, axis=1).unsqueeze(-1)
        l_neg = paddle.matmul(q, self.queue.clone().detach())
        logits = paddle.concat((l_pos, l_neg), axis=1) / self.T
        labels = paddle.zeros([logits.shape[0]], dtype="int64")
        self._dequeue_and_enqueue(k)
        return logits, labels


def test_moco_queue_written_by_slices_in_forward_trains_as_paddle():
    # item assignment into a layer's buffer raised "into an eager Tensor while a Program is being built"
    eager, net = _pair(MoCo)
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, 5]), InputSpec([None, 5])])
    rng = np.random.default_rng(1)
    runs = []
    for model, f in ((eager, eager), (net, conv)):
        opt = paddle.optimizer.SGD(0.1, parameters=model.encoder_q.parameters())
        losses = []
        for _ in range(4):
            x = rng.standard_normal((2, 5)).astype("float32")
            logits, labels = f(paddle.to_tensor(x), paddle.to_tensor(x + 0.1))
            loss = F.cross_entropy(logits, labels)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append(losses)
        rng = np.random.default_rng(1)
    assert runs[0] == runs[1]
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    assert int(net.queue_ptr[0]) == 2 and len(conv.forward.program_cache) == 1
    # PaddlePaddle 3.3
    np.testing.assert_allclose(runs[0], [0.541128, 1.305554, 1.192736, 2.901269], rtol=2e-5)
    np.testing.assert_allclose(eager.queue.numpy()[0], [0.642867, 0.726407, 0.687488, 0.708879, 0.750814, 0.914988], rtol=2e-5, atol=1e-6)


class Counter(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("hits", paddle.zeros([3]))

    def forward(self, x, k):
        if x.sum() > 0:
            self.hits[k] = self.hits[k] + 1.0
        else:
            self.hits[0] = -1.0
        return x * self.hits.sum()


def test_a_buffer_written_by_item_in_a_tensor_branch_as_eagerly():
    eager, net = Counter(), Counter()
    conv = dy2st.to_static(net)
    for v, k in [(1.0, 1), (2.0, 2), (-1.0, 0), (3.0, 1)]:
        want, got = eager(paddle.to_tensor([v]), paddle.to_tensor(k)), conv(paddle.to_tensor([v]), paddle.to_tensor(k))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(net.hits.numpy(), eager.hits.numpy())
    assert eager.hits.numpy().tolist() == [-1.0, 2.0, 1.0] and len(conv.forward.program_cache) == 1
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="item assignment .* into a trainable parameter"):
        dy2st.to_static(lambda x: lin.weight.__setitem__(0, x))(paddle.ones([2]))


def _same_training(cls, specs, batches, loss_fn):
    """An eager and a converted copy of ``cls`` (``specs``: the InputSpecs) trained on ``batches`` with
    Momentum: losses and state dicts bitwise equal. Returns the eager model, in eval mode."""
    eager, net = _pair(cls)
    conv = dy2st.to_static(net, input_spec=specs)
    runs = []
    for model, f in ((eager, eager), (net, conv)):
        opt = paddle.optimizer.Momentum(0.05, parameters=model.parameters(), grad_clip=nn.ClipGradByGlobalNorm(1.0))
        losses = []
        for b in batches:
            loss = loss_fn(f(*[paddle.to_tensor(x) for x in b]))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append(losses)
    assert runs[0] == runs[1]
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    assert len(conv.forward.program_cache) == 1  # one Program for every size
    eager.eval()
    net.eval()
    for b in batches:
        for want, got in zip(_tuple(eager(*[paddle.to_tensor(x) for x in b])), _tuple(conv(*[paddle.to_tensor(x) for x in b]))):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    return eager


def _tuple(x):
    return x if isinstance(x, (tuple, list)) else (x,)


class Ernie(nn.Layer):
    """ERNIE / BERT embeddings, a padding mask from the ids and the tanh pooler over [CLS] (PaddleNLP)."""

    def __init__(self, vocab=20, d=16, pad_token_id=0):
        super().__init__()
        self.pad_token_id = pad_token_id
        self.word_embeddings = nn.Embedding(vocab, d, padding_idx=pad_token_id)
        self.position_embeddings = nn.Embedding(32, d)
        self.token_type_embeddings = nn.Embedding(2, d)
        self.layer_norm = nn.LayerNorm(d)
        layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, activation="gelu", attn_dropout=0.0, act_dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.pooler = nn.Linear(d, d)
        self.classifier = nn.Linear(d, 3)

    def forward(self, input_ids, token_type_ids=None):
        if token_type_ids is None:
            token_type_ids = paddle.zeros_like(input_ids)
        attention_mask = paddle.unsqueeze(
            (input_ids == self.pad_token_id).astype(self.pooler.weight.dtype) * -1e4, axis=[1, 2])
        ones = paddle.ones_like(input_ids, dtype="int64")
        position_ids = paddle.cumsum(ones, axis=-1) - ones
        position_ids.stop_gradient = True
        emb = self.layer_norm(self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
                              + self.token_type_embeddings(token_type_ids))
        seq = self.encoder(emb, attention_mask)
        pooled = F.tanh(self.pooler(seq[:, 0]))
        return self.classifier(pooled), seq


ERNIE_IDS = [np.array([[3, 5, 7, 2, 0, 0], [4, 4, 9, 1, 8, 0]]), np.array([[3, 5, 0], [4, 4, 9], [1, 0, 0]])]


def test_ernie_padding_mask_and_pooler_serve_any_batch_and_length_as_paddle():
    eager = _same_training(Ernie, [InputSpec([None, None], "int64")], [(i,) for i in ERNIE_IDS],
                           lambda out: out[0].mean() + out[1].mean())
    fresh = _seeded(Ernie())
    logits = fresh(paddle.to_tensor(ERNIE_IDS[0]))[0]
    np.testing.assert_allclose(logits.numpy(), [[-0.210043, 0.495948, -0.050181], [-0.212348, 0.494544, -0.055037]], rtol=1e-4, atol=1e-5)  # PaddlePaddle 3.3
    # a padded position changes nothing but its own row
    longer = np.concatenate([ERNIE_IDS[1], np.zeros((3, 2), "int64")], 1)
    np.testing.assert_allclose(eager(paddle.to_tensor(longer))[0].numpy(),
                               eager(paddle.to_tensor(ERNIE_IDS[1]))[0].numpy(), rtol=1e-5, atol=1e-6)


class LCNetBlock(nn.Layer):
    """PP-LCNet's depthwise separable block: depthwise conv, hardswish, SE with hardsigmoid."""

    def __init__(self, c=8, out=12, stride=2):
        super().__init__()
        self.dw = nn.Conv2D(c, c, 3, stride=stride, padding=1, groups=c, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(c)
        self.act = nn.Hardswish()
        self.se1 = nn.Conv2D(c, c // 4, 1)
        self.se2 = nn.Conv2D(c // 4, c, 1)
        self.pw = nn.Conv2D(c, out, 1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(out)

    def forward(self, x):
        x = self.act(self.bn1(self.dw(x)))
        s = F.hardsigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(x, 1)))))
        return F.hardswish(self.bn2(self.pw(paddle.multiply(x, s))))


def channel_shuffle(x, groups):
    b, c, h, w = x.shape[0:4]
    x = paddle.reshape(x, [b, groups, c // groups, h, w])
    x = paddle.transpose(x, [0, 2, 1, 3, 4])
    return paddle.reshape(x, [b, c, h, w])


class ShuffleUnit(nn.Layer):
    """ShuffleNetV2's stride-1 unit: split channels, a branch on one half, concat, shuffle."""

    def __init__(self, c=8):
        super().__init__()
        h = c // 2
        self.branch = nn.Sequential(nn.Conv2D(h, h, 1), nn.BatchNorm2D(h), nn.ReLU(),
                                    nn.Conv2D(h, h, 3, padding=1, groups=h), nn.BatchNorm2D(h),
                                    nn.Conv2D(h, h, 1), nn.BatchNorm2D(h), nn.Swish())
        self.shuffle = nn.ChannelShuffle(2)

    def forward(self, x):
        x1, x2 = paddle.split(x, num_or_sections=[x.shape[1] // 2, x.shape[1] // 2], axis=1)
        out = paddle.concat([x1, self.branch(x2)], axis=1)
        return self.shuffle(channel_shuffle(out, 2)) + F.channel_shuffle(out, 2)


class HRFuse(nn.Layer):
    """HRNet's two-branch exchange: upsample the low branch (nearest), stride-2 conv the high one."""

    def __init__(self, c=(4, 8)):
        super().__init__()
        self.b0 = nn.Conv2D(3, c[0], 3, padding=1)
        self.b1 = nn.Conv2D(3, c[1], 3, stride=2, padding=1)
        self.up = nn.Sequential(nn.Conv2D(c[1], c[0], 1, bias_attr=False), nn.BatchNorm2D(c[0]))
        self.down = nn.Sequential(nn.Conv2D(c[0], c[1], 3, stride=2, padding=1, bias_attr=False), nn.BatchNorm2D(c[1]))
        self.head = nn.Conv2D(c[0] + c[1], 2, 1)

    def forward(self, x):
        x0, x1 = F.relu(self.b0(x)), F.relu(self.b1(x))
        y0 = F.relu(x0 + F.interpolate(self.up(x1), scale_factor=2, mode="nearest"))
        y1 = F.relu(x1 + self.down(x0))
        h, w = y0.shape[-2:]
        return self.head(paddle.concat([y0, F.interpolate(y1, size=[h, w], mode="bilinear", align_corners=False)], 1))


VISION_PADDLE = {"LCNetBlock": [0.074984, 0.063123, 0.075259, 0.071409],
                 "ShuffleUnit": [-1.603863, -2.648718, -0.496723, 0.84089],
                 "HRFuse": [-0.410305, -0.330146, -0.243759, -0.308479]}


def _images(c, *hw, n=2):
    rng = np.random.default_rng(5)
    return [(rng.standard_normal((n + k % 2, c) + s).astype("float32"),) for k, s in enumerate(hw)]


@pytest.mark.parametrize("cls,c,hw", [(LCNetBlock, 8, [(7, 7), (10, 6)]), (ShuffleUnit, 8, [(5, 5), (4, 7)]),
                                      (HRFuse, 3, [(8, 8), (12, 6)])])
def test_mobile_and_multi_branch_vision_blocks_train_like_eager_at_any_size_and_match_paddle(cls, c, hw):
    _same_training(cls, [InputSpec([None, c, None, None])], _images(c, *hw), lambda out: (out * out).mean())
    fresh = _seeded(cls())
    fresh.eval()
    got = fresh(paddle.to_tensor(_images(c, hw[0])[0][0])).numpy()
    np.testing.assert_allclose(got.reshape(-1)[:4], VISION_PADDLE[cls.__name__], rtol=1e-4, atol=1e-5)  # Paddle 3.3


class DIN(nn.Layer):
    """Deep Interest Network: attention of the target item over the behaviour sequence, padding masked."""

    def __init__(self, items=30, d=8):
        super().__init__()
        self.emb = nn.Embedding(items, d, padding_idx=0)
        self.att = nn.Sequential(nn.Linear(4 * d, 16), nn.Sigmoid(), nn.Linear(16, 1))
        self.mlp = nn.Sequential(nn.Linear(2 * d, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, hist, target):
        h = self.emb(hist)
        t = self.emb(target).unsqueeze(1).expand_as(h)
        s = self.att(paddle.concat([h, t, h - t, h * t], axis=-1)).squeeze(-1)
        s = paddle.where(hist != 0, s, paddle.full_like(s, -2 ** 32 + 1))
        user = paddle.matmul(F.softmax(s, axis=-1).unsqueeze(1), h).squeeze(1)
        return F.sigmoid(self.mlp(paddle.concat([user, self.emb(target)], -1)).squeeze(-1))


class DeepFM(nn.Layer):
    """DeepFM: first-order weights, the FM second-order term 0.5 * ((sum v)^2 - sum v^2), and a DNN."""

    def __init__(self, feat=40, fields=5, d=4):
        super().__init__()
        self.w1 = nn.Embedding(feat, 1)
        self.emb = nn.Embedding(feat, d)
        self.bias = paddle.create_parameter([1], "float32", default_initializer=nn.initializer.Constant(0.0))
        self.dnn = nn.Sequential(nn.Linear(fields * d, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, ids, vals):
        v = vals.unsqueeze(-1)
        first = paddle.sum(self.w1(ids) * v, axis=[1, 2])
        e = self.emb(ids) * v
        second = 0.5 * paddle.sum(paddle.square(paddle.sum(e, axis=1)) - paddle.sum(paddle.square(e), axis=1), axis=1)
        return F.sigmoid(first + second + self.dnn(paddle.flatten(e, 1)).squeeze(-1) + self.bias)


def test_din_and_deepfm_ctr_models_train_like_eager_for_any_batch_and_history_and_match_paddle():
    clicks = paddle.to_tensor([1.0, 0.0, 1.0])
    din_data = [(np.array([[3, 5, 7, 0, 0], [4, 1, 9, 12, 0], [2, 0, 0, 0, 0]]), np.array([6, 9, 2])),
                (np.array([[3, 8, 0], [4, 1, 2], [7, 7, 7]]), np.array([1, 2, 3]))]
    _same_training(DIN, [InputSpec([None, None], "int64"), InputSpec([None], "int64")], din_data,
                   lambda p: F.binary_cross_entropy(p, clicks))
    rng = np.random.default_rng(2)
    fm_data = [(rng.integers(0, 40, (3, 5)), rng.uniform(0, 1, (3, 5)).astype("float32")) for _ in range(2)]
    _same_training(DeepFM, [InputSpec([None, 5], "int64"), InputSpec([None, 5])], fm_data,
                   lambda p: F.binary_cross_entropy(p, clicks))
    # PaddlePaddle 3.3
    np.testing.assert_allclose(_seeded(DIN())(*[paddle.to_tensor(x) for x in din_data[0]]).numpy(), [0.3768968, 0.4439978, 0.4310156], rtol=1e-5)
    np.testing.assert_allclose(_seeded(DeepFM())(*[paddle.to_tensor(x) for x in fm_data[0]]).numpy(), [0.3860419, 0.4366884, 0.3769224],
                               rtol=1e-5)


def _along(a, i, j, r):
    return (paddle.take_along_axis(a, i, axis=1), paddle.take_along_axis(r, j, axis=1),
            paddle.put_along_axis(a, i, 7.0, axis=1))


def test_take_and_put_along_axis_broadcast_index_and_array_as_paddle_with_none_dims():
    # take_along_axis broadcast only the forward (its gradient raised); put_along_axis over a None batch
    # expanded the index to 1 row (expand's -1 keeps the index's dim): only the first row was written
    conv = dy2st.to_static(_along, input_spec=[InputSpec([None, 4]), InputSpec([1, 2], "int64"),
                                               InputSpec([None, 2], "int64"), InputSpec([1, 4])])
    rng = np.random.default_rng(0)
    for b in (3, 2):
        args = [rng.standard_normal((b, 4)), np.array([[1, 3]]), rng.integers(0, 4, (b + 1, 2)), rng.standard_normal((1, 4))]
        runs = []
        for f in (_along, conv):
            ins = [paddle.to_tensor(a if a.dtype.kind == "i" else a.astype("float32"), stop_gradient=a.dtype.kind == "i")
                   for a in args]
            outs = f(*ins)
            sum((o * (k + 1.0)).sum() for k, o in enumerate(outs)).backward()
            runs.append([o.numpy() for o in outs] + [ins[0].grad.numpy(), ins[3].grad.numpy()])
        for want, got in zip(*runs):
            np.testing.assert_array_equal(got, want)
        assert (runs[0][2][:, [1, 3]] == 7.0).all()


class PosEmbed(nn.Layer):
    """ViT / DeiT at another resolution: the position embeddings resized bicubically to the patch grid."""

    def __init__(self):
        super().__init__()
        self.pos = self.create_parameter([1, 4, 5, 5])
        self.patch = nn.Conv2D(3, 4, 2, stride=2)

    def forward(self, x):
        h, w = paddle.shape(x)[2] // 2, paddle.shape(x)[3] // 2
        pos = F.interpolate(self.pos, size=[h, w], mode="bicubic", align_corners=False)
        return self.patch(x) + pos + F.interpolate(x, size=[3, 4], mode="bicubic", align_corners=True).mean()


def test_bicubic_resize_to_run_time_sizes_trains_like_eager():
    # mode='bicubic' refused sizes known only when the Program runs
    _same_training(PosEmbed, [InputSpec([None, 3, None, None])],
                   [(np.random.default_rng(k).standard_normal((1, 3) + hw).astype("float32"),)
                    for k, hw in enumerate([(8, 6), (6, 10), (10, 10)])], lambda out: (out * out).mean())
