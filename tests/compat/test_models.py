"""The shapes of Paddle's model-level dy2st tests (test_mnist.py, test_sentiment.py,
test_seq2seq.py, test_transformer.py, test_bert.py), shrunk to seconds: a CNN flattening by
`x.shape[0]`, an LSTM text classifier with a padding mask, a greedy decoder whose loop stops on
a tensor condition and collects its steps in a list, and an attention block reshaping by run-time
dims. Each trains a few steps under `to_static` equal to eager, and serves other batch sizes from
one Program."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

from .helpers import arr


def _pair(cls, *args):
    rt.seed(11)
    eager = cls(*args)
    static = cls(*args)
    static.set_state_dict(eager.state_dict())
    return eager, dy2st.to_static(static)


def _train_equal(eager, net, batches, loss_fn, steps_tol=1e-4):
    oe = rt.optimizer.Adam(learning_rate=0.01, parameters=eager.parameters())
    os_ = rt.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    for inputs, label in batches:
        losses = []
        for model, opt in ((eager, oe), (net, os_)):
            loss = loss_fn(model(*[rt.to_tensor(i) for i in inputs]), rt.to_tensor(label))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        assert losses[1] == pytest.approx(losses[0], rel=steps_tol, abs=1e-6)
    for (n, pe), ps in zip(eager.named_parameters(), net.parameters()):
        np.testing.assert_allclose(ps.numpy(), pe.numpy(), rtol=steps_tol, atol=1e-5, err_msg=n)


class MnistLike(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        h = self.pool(F.relu(self.conv(x)))
        h = rt.reshape(h, [x.shape[0], -1])
        return self.fc(h)


def test_cnn_flattening_by_batch_trains_and_exports_any_batch(tmp_path):
    eager, net = _pair(MnistLike)
    rng = np.random.default_rng(0)
    batches = [((rng.standard_normal((4, 1, 8, 8)).astype("float32"),), rng.integers(0, 10, (4,)))
               for _ in range(3)]
    _train_equal(eager, net, batches, F.cross_entropy)
    net.eval(), eager.eval()
    path = str(tmp_path / "cnn")
    dy2st.save(net, path, input_spec=[dy2st.InputSpec([None, 1, 8, 8], "float32", "img")])
    loaded = dy2st.load(path)
    for b in (1, 5):
        x = rng.standard_normal((b, 1, 8, 8)).astype("float32")
        np.testing.assert_allclose(loaded(rt.to_tensor(x)).numpy(), eager(rt.to_tensor(x)).numpy(),
                                   rtol=1e-4, atol=1e-5)


class SentimentLSTM(nn.Layer):
    def __init__(self, vocab=30, dim=8, pad=0):
        super().__init__()
        self.pad = pad
        self.emb = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim)
        self.fc = nn.Linear(dim, 2)

    def forward(self, ids):
        mask = (ids != self.pad).astype("float32")
        h, _ = self.lstm(self.emb(ids))
        h = h * rt.unsqueeze(mask, -1)
        pooled = rt.sum(h, axis=1) / rt.unsqueeze(rt.sum(mask, axis=1) + 1e-6, -1)
        return self.fc(rt.tanh(pooled))


def test_lstm_classifier_with_padding_mask_trains_like_eager():
    eager, net = _pair(SentimentLSTM)
    rng = np.random.default_rng(1)
    batches = []
    for _ in range(2):
        ids = rng.integers(1, 30, (3, 6)).astype("int64")
        ids[0, 4:] = 0
        batches.append(((ids,), rng.integers(0, 2, (3,))))
    _train_equal(eager, net, batches, F.cross_entropy)


class GreedyDecoder(nn.Layer):
    """Greedy decoding: a tensor-bounded loop that stops when every sequence emitted `eos`,
    collecting each step's token in a list stacked after the loop."""

    def __init__(self, vocab=12, dim=8, eos=1):
        super().__init__()
        self.eos = eos
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, enc, max_len):
        batch = enc.shape[0]
        tok = rt.zeros([batch], "int64")
        h = enc
        done = rt.zeros([batch], "bool")
        steps = []
        for _ in range(max_len):
            _, h = self.cell(self.emb(tok), h)
            tok = rt.argmax(self.out(h), axis=-1)
            steps.append(tok)
            done = rt.logical_or(done, tok == self.eos)
            if rt.all(done):
                break
        return rt.stack(steps, axis=1)


def test_greedy_decoder_with_tensor_break_and_step_list():
    eager, net = _pair(GreedyDecoder)
    eager.eval(), net.eval()
    rng = np.random.default_rng(2)
    for b, n in ((2, 4), (3, 6), (1, 2)):
        enc = rng.standard_normal((b, 8)).astype("float32")
        ml = rt.to_tensor(n)
        e, s = eager(rt.to_tensor(enc), ml), net(rt.to_tensor(enc), ml)
        np.testing.assert_array_equal(s.numpy(), e.numpy())
    ops = {op.type for blk in net.forward.program_cache.last().main_program.blocks for op in blk.ops}
    assert "while" in ops


class Attention(nn.Layer):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, mask):
        b, n = x.shape[0], x.shape[1]
        d = x.shape[-1] // self.heads
        qkv = rt.reshape(self.qkv(x), [b, n, 3, self.heads, d])
        qkv = rt.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = rt.matmul(q, k, transpose_y=True) / (d ** 0.5)
        att = att + (1.0 - rt.unsqueeze(mask, [1, 2])) * -1e4
        att = self.drop(F.softmax(att, axis=-1))
        o = rt.reshape(rt.transpose(rt.matmul(att, v), [0, 2, 1, 3]), [b, n, -1])
        return self.norm(x + self.proj(o))


def test_attention_with_runtime_dims_and_mask_trains_and_serves_any_shape():
    eager, net = _pair(Attention)
    eager.eval(), net.eval()
    rng = np.random.default_rng(3)
    batches = []
    for _ in range(2):
        x = rng.standard_normal((2, 5, 8)).astype("float32")
        mask = np.ones((2, 5), "float32")
        mask[1, 3:] = 0
        batches.append(((x, mask), rng.standard_normal((2, 5, 8)).astype("float32")))
    _train_equal(eager, net, batches, F.mse_loss)
    spec = [dy2st.InputSpec([None, None, 8], "float32", "x"), dy2st.InputSpec([None, None], "float32", "m")]
    sf = dy2st.to_static(eager.forward, input_spec=spec)
    for b, n in ((1, 3), (3, 7)):
        x = rng.standard_normal((b, n, 8)).astype("float32")
        m = np.ones((b, n), "float32")
        np.testing.assert_allclose(sf(rt.to_tensor(x), rt.to_tensor(m)).numpy(),
                                   eager(rt.to_tensor(x), rt.to_tensor(m)).numpy(), rtol=1e-4, atol=1e-5)
    assert len(sf.program_cache) == 1


def test_greedy_decoder_with_a_none_batch_dim():
    rt.seed(11)
    dec = GreedyDecoder()
    dec.eval()
    sf = dy2st.to_static(dec.forward, input_spec=[dy2st.InputSpec([None, 8], "float32", "enc"),
                                                  dy2st.InputSpec([], "int64", "n")])
    for b, n in ((2, 3), (4, 5), (1, 1)):
        enc = rt.to_tensor(arr(b, 8, seed=b))
        np.testing.assert_array_equal(sf(enc, rt.to_tensor(n)).numpy(), dec(enc, rt.to_tensor(n)).numpy())
    assert len(sf.program_cache) == 1


def collect_rows(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return rt.stack(rows, axis=1), len(rows)


def test_empty_list_collecting_items_with_a_none_dim():
    sf = dy2st.to_static(collect_rows, input_spec=[dy2st.InputSpec([None, 3], "float32", "x"),
                                                   dy2st.InputSpec([], "int64", "n")])
    for b, n in ((2, 3), (5, 1)):
        x = arr(b, 3, seed=b)
        e, s = collect_rows(rt.to_tensor(x), rt.to_tensor(n)), sf(rt.to_tensor(x), rt.to_tensor(n))
        np.testing.assert_allclose(s[0].numpy(), e[0].numpy(), rtol=1e-6)
        assert int(s[1]) == e[1]
    assert len(sf.program_cache) == 1


class CausalSelfAttention(nn.Layer):
    """GPT-style causal mask from `rt.triu` of the run-time sequence length."""

    def __init__(self, dim=8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        q, k, v = rt.split(self.qkv(x), 3, axis=-1)
        s = rt.matmul(q, k, transpose_y=True)
        n = rt.shape(x)[1]
        future = rt.triu(rt.ones([n, n], "float32"), diagonal=1)
        s = rt.masked_fill(s, future > 0, -1e9)
        return rt.matmul(F.softmax(s, axis=-1), v) + rt.logsumexp(s, axis=-1, keepdim=True) * 0


def test_causal_mask_from_triu_serves_every_sequence_length():
    eager, net = _pair(CausalSelfAttention)
    spec = [dy2st.InputSpec([None, None, 8], "float32", "x")]
    sf = dy2st.to_static(eager.forward, input_spec=spec)
    for b, n in ((1, 2), (2, 5)):
        x = arr(b, n, 8, seed=n)
        np.testing.assert_allclose(sf(rt.to_tensor(x)).numpy(), eager(rt.to_tensor(x)).numpy(),
                                   rtol=1e-5, atol=1e-6)
    assert len(sf.program_cache) == 1
    _train_equal(eager, net, [((arr(2, 4, 8, seed=s),), arr(2, 4, 8, seed=s + 9)) for s in (1, 2)],
                 F.mse_loss)


class TinyResNetHead(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x))) + x.mean(axis=1, keepdim=True)
        h = rt.flatten(self.pool(h), 1)
        return self.fc(F.normalize(h, axis=1))


def test_conv_bn_adaptive_pool_head_with_bce_trains_like_eager():
    eager, net = _pair(TinyResNetHead)
    rng = np.random.default_rng(4)
    batches = [((rng.standard_normal((3, 3, 6, 6)).astype("float32"),),
                (rng.random((3, 1)) > 0.5).astype("float32")) for _ in range(2)]
    _train_equal(eager, net, batches, nn.BCEWithLogitsLoss())
    eager.eval(), net.eval()
    x = rt.to_tensor(rng.standard_normal((2, 3, 6, 6)).astype("float32"))
    np.testing.assert_allclose(net(x).numpy(), eager(x).numpy(), rtol=1e-4, atol=1e-5)


class PaddedConv(nn.Layer):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.conv = nn.Conv2D(2, 3, 3)

    def forward(self, x):
        return self.conv(F.pad(x, [1, 1, 1, 1], mode=self.mode))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_explicit_padding_before_a_conv_any_batch(mode):
    eager, net = _pair(PaddedConv, mode)
    sf = dy2st.to_static(eager.forward, input_spec=[dy2st.InputSpec([None, 2, 5, 5], "float32", "x")])
    for b in (1, 3):
        x = arr(b, 2, 5, 5, seed=b)
        np.testing.assert_allclose(sf(rt.to_tensor(x)).numpy(), eager(rt.to_tensor(x)).numpy(),
                                   rtol=1e-5, atol=1e-6)
    assert len(sf.program_cache) == 1
    _train_equal(eager, net, [((arr(2, 2, 5, 5, seed=7),), arr(2, 3, 5, 5, seed=8))], F.mse_loss)
