"""More user code ported by changing imports: PaddleNLP-style decoding with
``nn.TransformerDecoderLayer`` caches (greedy until every row has ended, a while loop on
``not paddle.all(finished)``; beam search that reorders the caches with ``paddle.gather``), a
hapi ``paddle.Model`` fit driven by the ``LRScheduler`` and ``EarlyStopping`` callbacks, and
``vision.models.LeNet(num_classes)``. Expected numbers were recorded with PaddlePaddle 3.3."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.io import DataLoader, TensorDataset
from runtime.static import InputSpec

V, D, EOS = 12, 16, 11


class LM(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.layer = nn.TransformerDecoderLayer(D, 2, 32, dropout=0.0, normalize_before=True)
        self.head = nn.Linear(D, V)

    def step(self, tok, mem, cache):
        h, cache = self.layer(self.emb(tok), mem, None, None, cache)
        return self.head(h[:, -1]), cache

    def greedy_until_eos(self, mem, max_len: int = 8):
        cache = self.layer.gen_cache(mem)
        tok = paddle.zeros([mem.shape[0], 1], "int64")
        finished = paddle.zeros([mem.shape[0]], "bool")
        out = paddle.zeros([mem.shape[0], 0], "int64")
        scores = paddle.zeros([mem.shape[0]], "float32")
        i = 0
        while i < max_len and not paddle.all(finished):
            logits, cache = self.step(tok, mem, cache)
            logp = F.log_softmax(logits, -1)
            nxt = paddle.where(finished, paddle.full_like(paddle.argmax(logp, -1), EOS), paddle.argmax(logp, -1))
            scores = scores + paddle.where(finished, paddle.zeros_like(scores), paddle.max(logp, -1))
            finished = paddle.logical_or(finished, nxt == EOS)
            out = paddle.concat([out, nxt.unsqueeze(1)], 1)
            tok = nxt.unsqueeze(1)
            i += 1
        return out, scores

    def beam(self, mem, beam: int = 3, max_len: int = 4):
        b = mem.shape[0]
        mem = paddle.repeat_interleave(mem, beam, axis=0)
        cache = self.layer.gen_cache(mem)
        tok = paddle.zeros([b * beam, 1], "int64")
        scores = paddle.to_tensor([0.0] + [-1e9] * (beam - 1)).tile([b])
        seqs = paddle.zeros([b * beam, 0], "int64")
        for _ in range(max_len):
            logits, cache = self.step(tok, mem, cache)
            top, idx = paddle.topk((scores.unsqueeze(1) + F.log_softmax(logits, -1)).reshape([b, beam * V]), beam)
            src = (idx // V + paddle.arange(b).unsqueeze(1) * beam).reshape([-1])
            tok = (idx % V).reshape([-1, 1])
            seqs = paddle.concat([paddle.gather(seqs, src), tok], 1)
            cache = (nn.MultiHeadAttention.Cache(paddle.gather(cache[0].k, src), paddle.gather(cache[0].v, src)),
                     cache[1])
            scores = top.reshape([-1])
        return seqs.reshape([b, beam, -1]), scores.reshape([b, beam])


def test_cached_greedy_and_beam_decoding_convert_like_eager():
    paddle.seed(3)
    lm = LM()
    lm.eval()
    # the EOS logit made likely for some rows, so the loop ends early for some memories
    lm.head.bias.set_value(paddle.to_tensor(np.where(np.arange(V) == EOS, 1.5, 0.0).astype("float32")))
    greedy, beam = dy2st.to_static(lm.greedy_until_eos), dy2st.to_static(lm.beam)
    rng = np.random.default_rng(0)
    lengths = set()
    for scale in (0.5, 1.0, 3.0, 6.0):
        mem = paddle.to_tensor((rng.standard_normal((2, 5, D)) * scale).astype("float32"))
        want, got = lm.greedy_until_eos(mem), greedy(mem)
        lengths.add(want[0].shape[1])
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-6)
        want, got = lm.beam(mem), beam(mem)
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-6)
        assert (np.diff(want[1].numpy(), axis=1) <= 0).all()  # beams come best first
    assert len(lengths) > 1  # the while loop stopped at different steps


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Rec(paddle.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(("epoch", epoch, round(float(np.asarray(logs["loss"]).reshape(-1)[0]), 4)))

    def on_eval_end(self, logs=None):
        self.events.append(("eval", round(float(np.asarray(logs["loss"]).reshape(-1)[0]), 4), float(logs["acc"])))


def test_hapi_fit_with_lr_scheduler_and_early_stopping_callbacks_as_paddle():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 6)).astype("float32")
    xv = rng.standard_normal((8, 6)).astype("float32")
    y, yv = (x[:, :1] > 0).astype("int64"), (xv[:, :1] > 0).astype("int64")
    for static in (False, True):
        net = Net()
        w = np.random.default_rng(5)
        net.set_state_dict({k: paddle.to_tensor((w.standard_normal(v.shape) * 0.5).astype("float32"))
                            for k, v in net.state_dict().items()})
        model = paddle.Model(dy2st.to_static(net) if static else net, inputs=[InputSpec([None, 6], "float32", "x")],
                             labels=[InputSpec([None, 1], "int64", "y")])
        sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
        opt = paddle.optimizer.Adam(learning_rate=sched, parameters=model.parameters(), grad_clip=nn.ClipGradByNorm(1.0))
        model.prepare(opt, nn.CrossEntropyLoss(), paddle.metric.Accuracy())
        rec = Rec()
        stop = paddle.callbacks.EarlyStopping(monitor="loss", mode="min", patience=1, min_delta=0.05,
                                              save_best_model=False, verbose=0)
        model.fit(TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)]),
                  TensorDataset([paddle.to_tensor(xv), paddle.to_tensor(yv)]), epochs=6, batch_size=5, shuffle=False,
                  verbose=0, callbacks=[rec, paddle.callbacks.LRScheduler(by_step=False, by_epoch=True), stop])
        # Paddle 3.3: stopped after the 4th epoch (eval loss improved by less than min_delta)
        assert rec.events == [("epoch", 0, 0.5295), ("eval", 0.6131, 0.75), ("epoch", 1, 0.5197), ("eval", 0.482, 0.75),
                              ("epoch", 2, 0.3858), ("eval", 0.4032, 0.75), ("epoch", 3, 0.3097),
                              ("eval", 0.3715, 0.75)]
        assert sched.last_epoch == 4 and opt.get_lr() == 0.00625
        loader = DataLoader(TensorDataset([paddle.to_tensor(xv), paddle.to_tensor(yv)]), batch_size=3, shuffle=False)
        np.testing.assert_allclose(model.predict(loader, verbose=0, stack_outputs=True)[0][:2],
                                   [[-0.5194564, 3.0401993], [3.8236713, 1.5099849]], rtol=2e-6)


def test_lenet_has_num_classes_outputs():
    # its last Linear had 10 outputs whatever num_classes said (Paddle 2.0's bug, fixed in Paddle)
    net = paddle.vision.models.LeNet(num_classes=3)
    assert net.fc[2].weight.shape == [84, 3]
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 1, 28, 28)).astype("float32"))
    np.testing.assert_array_equal(dy2st.to_static(net)(x).numpy(), net(x).numpy())
    assert net(x).shape == [2, 3]


class CBAM(nn.Layer):
    """Channel attention from a global average and a global max pool, spatial attention from a 7x7
    'SAME' convolution over the channel mean and max (PaddleDetection / PaddleClas attention blocks)."""

    def __init__(self, c=8):
        super().__init__()
        self.stem = nn.Conv2D(3, c, 3, padding="SAME")
        self.mlp = nn.Sequential(nn.Conv2D(c, c // 4, 1), nn.ReLU(), nn.Conv2D(c // 4, c, 1))
        self.spatial = nn.Conv2D(2, 1, 7, padding="SAME")
        self.fc = nn.Linear(c, 2)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = x * F.sigmoid(self.mlp(nn.AdaptiveAvgPool2D(1)(x)) + self.mlp(F.adaptive_max_pool2d(x, 1)))
        pooled = paddle.concat([x.mean(axis=1, keepdim=True), x.max(axis=1, keepdim=True)], axis=1)
        x = x * F.sigmoid(self.spatial(pooled))
        return self.fc(F.adaptive_max_pool2d(x, [1, None]).max(axis=[2, 3]))


def test_attention_block_with_global_max_pool_and_same_padding_serves_any_image_size(tmp_path):
    # adaptive_max_pool2d(x, 1) and padding='SAME' (stride 1) refused dims an InputSpec leaves None
    rng = np.random.default_rng(6)
    eager, net = CBAM(), CBAM()
    net.set_state_dict(eager.state_dict())
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, 3, None, None], "float32")])
    opts = [paddle.optimizer.Momentum(0.05, parameters=m.parameters()) for m in (eager, net)]
    for h, w in [(9, 6), (4, 11), (9, 6)]:
        x = np.round(rng.standard_normal((2, 3, h, w)), 1).astype("float32")  # ties for the max pools
        y = rng.integers(0, 2, (2,))
        for f, opt in ((eager, opts[0]), (conv, opts[1])):
            F.cross_entropy(f(paddle.to_tensor(x)), paddle.to_tensor(y)).backward()
            opt.step()
            opt.clear_grad()
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    dy2st.save(conv, str(tmp_path / "cbam"))
    loaded = dy2st.load(str(tmp_path / "cbam"))
    for h, w in [(5, 5), (12, 3)]:
        x = paddle.to_tensor(rng.standard_normal((1, 3, h, w)).astype("float32"))
        np.testing.assert_array_equal(loaded(x).numpy(), eager(x).numpy())
    with pytest.raises(ValueError, match="stride above 1 needs known spatial dims"):  # (a conv takes them)
        dy2st.to_static(nn.MaxPool2D(3, stride=2, padding="SAME"),
                        input_spec=[InputSpec([None, 3, None, None], "float32")])(paddle.ones([1, 3, 5, 5]))
