"""Text models as Paddle 2.x users write them, ported by changing imports: a TextCNN, a BiLSTM
classifier over padded batches with sequence lengths and a mask, a GRU seq2seq with attention whose
greedy decode stops on a tensor condition, a Transformer translation model with
``paddle.triu`` masks, a GPT with weight tying and a KV-cache generation loop, and layers that keep
state in attributes across calls (a stateful RNN reset per episode, a growing KV cache)."""
import math

import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn

from .helpers import pair, train_same


def _padded(rng, n=3, vocab=50, batch=4, width=6):
    out = []
    for _ in range(n):
        lens = rng.integers(2, width + 1, (batch,)).astype("int64")
        ids = rng.integers(1, vocab, (batch, width))
        for i, k in enumerate(lens):
            ids[i, k:] = 0
        out.append((ids, lens, rng.integers(0, 3, (batch,))))
    return out


class TextCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8, padding_idx=0)
        self.convs = nn.LayerList([nn.Conv1D(8, 4, k, padding=k // 2) for k in (2, 3)])
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(8, 3)

    def forward(self, ids):
        x = self.emb(ids).transpose([0, 2, 1])
        pools = [paddle.max(F.relu(conv(x)), axis=-1) for conv in self.convs]
        return self.fc(self.drop(paddle.concat(pools, axis=-1)))


class BiLSTM(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8, padding_idx=0)
        self.lstm = nn.LSTM(8, 6, direction="bidirect")
        self.fc = nn.Linear(12, 3)

    def forward(self, ids, lens):
        out, _ = self.lstm(self.emb(ids), sequence_length=lens)
        mask = (ids != 0).astype("float32").unsqueeze(-1)
        return self.fc(paddle.tanh(paddle.sum(out * mask, axis=1) / paddle.sum(mask, axis=1)))


def test_text_cnn_and_bilstm_with_lengths_and_mask_train_like_eager():
    data = _padded(np.random.default_rng(0), n=2)
    train_same(TextCNN, [(ids, y) for ids, _, y in data], lambda m, x, y: F.cross_entropy(m(x), y))
    train_same(BiLSTM, data, lambda m, x, n, y: F.cross_entropy(m(x, n), y))


class Seq2Seq(nn.Layer):
    def __init__(self, vocab=12, dim=8):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(vocab, dim), nn.Embedding(vocab, dim)
        self.enc = nn.GRU(dim, dim)
        self.cell = nn.GRUCell(2 * dim, dim)
        self.attn = nn.Linear(dim, dim, bias_attr=False)
        self.out = nn.Linear(2 * dim, vocab)

    def encode(self, src, src_len):
        enc_out, h = self.enc(self.src_emb(src), sequence_length=src_len)
        return enc_out, h[0], paddle.arange(src.shape[1]).unsqueeze(0) < src_len.unsqueeze(1)

    def step(self, tok, h, enc_out, mask):
        score = paddle.matmul(enc_out, self.attn(h).unsqueeze(-1)).squeeze(-1)
        w = F.softmax(paddle.where(mask, score, paddle.full_like(score, -1e9)), axis=-1)
        ctx = paddle.sum(enc_out * w.unsqueeze(-1), axis=1)
        h, _ = self.cell(paddle.concat([self.tgt_emb(tok), ctx], -1), h)
        return self.out(paddle.concat([h, ctx], -1)), h

    @paddle.no_grad()
    def greedy(self, src, src_len, max_len, eos=1):
        enc_out, h, mask = self.encode(src, src_len)
        tok = paddle.zeros([src.shape[0]], "int64")
        done = paddle.zeros([src.shape[0]], "bool")
        outs = []
        i = paddle.zeros([1], "int64")
        while i < max_len:
            lg, h = self.step(tok, h, enc_out, mask)
            tok = paddle.where(done, paddle.full_like(tok, eos), paddle.argmax(lg, -1))
            outs.append(tok)
            done = done | (tok == eos)
            if paddle.all(done):
                break
            i += 1
        return paddle.stack(outs, 1)


def test_seq2seq_with_attention_and_an_early_stopping_greedy_decode():
    eager, static = pair(Seq2Seq)
    for m in (eager, static):  # make EOS likely, so some decodes stop early
        m.out.bias.set_value(m.out.bias.numpy() + np.eye(12, dtype="float32")[1] * 0.3)
    greedy = dy2st.to_static(static.greedy)
    lengths = set()
    for seed in range(4):
        r = np.random.default_rng(seed)
        src, n = paddle.to_tensor(r.integers(2, 12, (3, 5))), paddle.to_tensor(r.integers(2, 6, (3,)))
        want, got = eager.greedy(src, n, paddle.to_tensor(8)), greedy(src, n, paddle.to_tensor(8))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        lengths.add(want.shape[1])
    assert len(lengths) > 1 and min(lengths) < 8  # it stopped early, at different steps
    assert len(greedy.program_cache) == 1


class Translator(nn.Layer):
    def __init__(self, vocab=16, d=8):
        super().__init__()
        self.se, self.te = nn.Embedding(vocab, d), nn.Embedding(vocab, d)
        self.pos = self.create_parameter([32, d])
        self.tr = nn.Transformer(d, 2, 1, 1, 16, dropout=0.1)
        self.proj = nn.Linear(d, vocab)

    def forward(self, src, tgt):
        n = tgt.shape[1]
        src_mask = (src == 0).astype("float32").unsqueeze([1, 2]) * -1e9
        tgt_mask = paddle.triu(paddle.full([n, n], float("-inf")), diagonal=1)
        out = self.tr(self.se(src) + self.pos[:src.shape[1]], self.te(tgt) + self.pos[:n],
                      src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=src_mask)
        return self.proj(out)


def test_transformer_translation_with_triu_masks_trains_like_eager():
    rng = np.random.default_rng(0)
    data = [(rng.integers(0, 16, (2, 5)), rng.integers(1, 16, (2, 5))) for _ in range(2)]
    train_same(Translator, data, lambda m, x, y: F.cross_entropy(m(x, y[:, :-1]), y[:, 1:].unsqueeze(-1)))


class GPTBlock(nn.Layer):
    def __init__(self, d=8, h=2):
        super().__init__()
        self.h, self.d = h, d
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, cache=None):
        b, t = x.shape[0], x.shape[1]
        q, k, v = [z.reshape([b, -1, self.h, self.d // self.h]).transpose([0, 2, 1, 3])
                   for z in paddle.split(self.qkv(self.ln1(x)), 3, axis=-1)]
        if cache is not None:
            k, v = paddle.concat([cache[0], k], axis=2), paddle.concat([cache[1], v], axis=2)
        att = paddle.matmul(q, k, transpose_y=True) / math.sqrt(self.d // self.h)
        if cache is None:
            att = paddle.where(paddle.tril(paddle.ones([t, t])) == 0, paddle.full_like(att, float("-inf")), att)
        y = paddle.matmul(F.softmax(att, axis=-1), v).transpose([0, 2, 1, 3]).reshape([b, t, self.d])
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x)), (k, v)


class GPT(nn.Layer):
    def __init__(self, vocab=16, d=8):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(16, d)
        self.blocks = nn.LayerList([GPTBlock(d)])
        self.ln = nn.LayerNorm(d)

    def forward(self, ids, caches=None, start=0):
        x = self.tok(ids) + self.pos(paddle.arange(start, start + ids.shape[1]).unsqueeze(0))
        new = []
        for i, blk in enumerate(self.blocks):
            x, c = blk(x, None if caches is None else caches[i])
            new.append(c)
        return paddle.matmul(self.ln(x), self.tok.weight, transpose_y=True), new  # tied weights

    @paddle.no_grad()
    def generate(self, ids, steps):
        logits, caches = self(ids)
        nxt = paddle.argmax(logits[:, -1], axis=-1, keepdim=True)
        out, i = nxt, 0
        while i < steps - 1:
            logits, caches = self(nxt, caches, ids.shape[1] + i)
            nxt = paddle.argmax(logits[:, -1], axis=-1, keepdim=True)
            out = paddle.concat([out, nxt], axis=1)
            i += 1
        return out


def test_gpt_with_tied_weights_clipping_and_a_kv_cache_generation_loop():
    rng = np.random.default_rng(0)

    def lm(m, ids):
        logits, _ = m(ids[:, :-1])
        return F.cross_entropy(logits.reshape([-1, 16]), ids[:, 1:].reshape([-1, 1]))
    eager, static = train_same(GPT, [(rng.integers(0, 16, (2, 6)),) for _ in range(2)], lm,
                                lambda p: paddle.optimizer.AdamW(0.01, parameters=p, weight_decay=0.01,
                                                                 grad_clip=nn.ClipGradByGlobalNorm(1.0)))
    gen = dy2st.to_static(static.generate)
    for steps in (3, 5):
        x = paddle.to_tensor(rng.integers(0, 16, (2, 4)))
        np.testing.assert_array_equal(gen(x, paddle.to_tensor(steps)).numpy(),
                                      eager.generate(x, paddle.to_tensor(steps)).numpy())
    assert len(gen.program_cache) == 1


class StatefulRNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(2, 2)
        self.h = None

    def forward(self, x):
        h = paddle.zeros_like(x) if self.h is None else self.h
        h = paddle.tanh(self.cell(x) + h)
        self.h = h.detach()  # truncated BPTT: the state carries into the next call
        return h


class CachedAttention(nn.Layer):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(4, 12)
        self.k_cache = self.v_cache = None

    def forward(self, x):
        q, k, v = paddle.split(self.qkv(x), 3, -1)
        if self.k_cache is not None:
            k, v = paddle.concat([self.k_cache, k], 1), paddle.concat([self.v_cache, v], 1)
        self.k_cache, self.v_cache = k, v
        return paddle.matmul(F.softmax(paddle.matmul(q, k, transpose_y=True) * q.shape[-1] ** -0.5, -1), v)


class DictStateRNN(StatefulRNN):
    def forward(self, x):
        h = paddle.zeros_like(x) if self.h["h"] is None else self.h["h"]
        h = paddle.tanh(self.cell(x) + h)
        self.h["h"] = h.detach()
        return h


def _reset(m, attrs):
    for a in attrs:
        setattr(m, a, {"h": None} if isinstance(m, DictStateRNN) else None)


@pytest.mark.parametrize("cls,attrs", [(StatefulRNN, ("h",)), (DictStateRNN, ("h",)),
                                       (CachedAttention, ("k_cache", "v_cache"))])
def test_state_kept_in_attributes_across_calls_and_reset_per_episode(cls, attrs):
    # After a reset (`self.h = None`) the Program traced with a tensor there ran again, reading the
    # old episode's state: silently wrong outputs; a cache that grew raised in set_value; a reset
    # dict ({'h': None} again) crashed in the guard and then had the Program write into the old dict.
    eager, static = pair(cls)
    net = dy2st.to_static(static)
    rng = np.random.default_rng(0)
    dim = 4 if cls is CachedAttention else 2
    for _ in range(2):
        _reset(eager, attrs)
        _reset(static, attrs)
        for _ in range(3):
            x = paddle.to_tensor(rng.standard_normal((2, 1, dim)).astype("float32"))
            np.testing.assert_array_equal(net(x).numpy(), eager(x).numpy())
            for a in attrs:
                got, want = getattr(static, a), getattr(eager, a)
                got, want = (got["h"], want["h"]) if isinstance(want, dict) else (got, want)
                np.testing.assert_array_equal(got.numpy(), want.numpy())


class ViterbiCRF(nn.Layer):
    def __init__(self, n=4):
        super().__init__()
        self.emit = nn.Linear(6, n)
        self.trans = self.create_parameter([n, n])

    def forward(self, x):
        em = self.emit(x)
        score, hist = em[:, 0], []
        for t in range(1, em.shape[1]):
            s = score.unsqueeze(2) + self.trans.unsqueeze(0) + em[:, t].unsqueeze(1)
            hist.append(paddle.argmax(s, axis=1))
            score = paddle.max(s, axis=1)
        last = paddle.argmax(score, axis=1)
        path = [last]
        for best in reversed(hist):  # backtrace
            last = paddle.take_along_axis(best, last.unsqueeze(1), axis=1).squeeze(1)
            path.append(last)
        path.reverse()
        return paddle.stack(path, 1), paddle.max(score, 1)


def test_crf_viterbi_decode_with_a_backtrace_over_any_length():
    # reversed() of the list the forward loop built (one stacked tensor) raised TypeError.
    paddle.seed(2)
    crf = ViterbiCRF()
    net = dy2st.to_static(crf, input_spec=[dy2st.InputSpec([None, None, 6], "float32")])
    rng = np.random.default_rng(0)
    for t in (5, 3, 1):
        x = paddle.to_tensor(rng.standard_normal((2, t, 6)).astype("float32"))
        for g, w in zip(net(x), crf(x)):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert len(net.forward.program_cache) == 1


class MinGRUCell(nn.RNNCellBase):
    def __init__(self, i, h):
        super().__init__()
        self.h, self.z, self.c = h, nn.Linear(i + h, h), nn.Linear(i + h, h)

    def forward(self, x, state):
        xh = paddle.concat([x, state], -1)
        z = F.sigmoid(self.z(xh))
        new = (1 - z) * state + z * paddle.tanh(self.c(xh))
        return new, new

    @property
    def state_shape(self):
        return (self.h,)


class CustomCellNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn, self.fc = nn.RNN(MinGRUCell(3, 4)), nn.Linear(4, 2)

    def forward(self, x, lens):
        _, h = self.rnn(x, sequence_length=lens)
        return self.fc(h) + self.rnn.cell.get_initial_states(x, init_value=0.5).sum()


def test_a_custom_rnn_cell_on_rnncellbase_trains_and_serves_any_length():
    # nn.RNNCellBase (the base of user-written cells) was missing.
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((3, 5, 3)).astype("float32"), rng.integers(1, 6, (3,)), rng.integers(0, 2, (3,)))
            for _ in range(2)]
    eager, static = train_same(CustomCellNet, data, lambda m, x, n, y: F.cross_entropy(m(x, n), y))
    net = dy2st.to_static(static, input_spec=[dy2st.InputSpec([None, None, 3], "float32"),
                                              dy2st.InputSpec([None], "int64")])
    for b, t in ((2, 4), (3, 6)):
        x, n = paddle.to_tensor(rng.standard_normal((b, t, 3)).astype("float32")), paddle.to_tensor(rng.integers(1, t + 1, (b,)))
        np.testing.assert_array_equal(net(x, n).numpy(), eager(x, n).numpy())
    assert isinstance(nn.LSTMCell(2, 3), nn.RNNCellBase)
    h, c = nn.LSTMCell(2, 3).get_initial_states(paddle.ones([5, 2]))
    assert h.shape == c.shape == [5, 3]
