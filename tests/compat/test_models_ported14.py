"""More user code ported by changing imports: LeViT's attention bias table gathered by a buffer of
indices, TabNet's sparsemax attentive steps, Transformer-XL's memory carried over segments of a
run-time length (a causal mask whose ``triu`` diagonal comes from run-time sizes), Longformer's
sliding-window attention by ``F.unfold`` and Informer's ProbSparse attention (top-u queries written
back by ``put_along_axis``). Trained under ``to_static`` they equal eager bitwise, and serve any
batch (and length) from one Program, saved and loaded."""
import itertools

import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import same_training as _same_training


class LeViTAttention(nn.Layer):
    def __init__(self, dim=8, key_dim=4, num_heads=2, resolution=3):
        super().__init__()
        self.num_heads, self.key_dim, self.scale = num_heads, key_dim, key_dim ** -0.5
        self.qkv = nn.Linear(dim, num_heads * key_dim * 3)
        self.proj = nn.Linear(num_heads * key_dim, dim)
        points = list(itertools.product(range(resolution), range(resolution)))
        N = len(points)
        attention_offsets, idxs = {}, []
        for p1 in points:
            for p2 in points:
                offset = (abs(p1[0] - p2[0]), abs(p1[1] - p2[1]))
                if offset not in attention_offsets:
                    attention_offsets[offset] = len(attention_offsets)
                idxs.append(attention_offsets[offset])
        self.attention_biases = self.create_parameter((num_heads, len(attention_offsets)),
                                                      default_initializer=nn.initializer.Constant(0.0))
        self.register_buffer("attention_bias_idxs", paddle.to_tensor(idxs, dtype="int64").reshape([N, N]))

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape([B, N, 3, self.num_heads, self.key_dim]).transpose([2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        attention_biases = paddle.transpose(self.attention_biases, (1, 0))
        attention_bias_idxs = paddle.transpose(self.attention_bias_idxs, (1, 0))
        attention_biases = paddle.transpose(paddle.gather(attention_biases, attention_bias_idxs.reshape([-1])),
                                            (1, 0)).reshape([self.num_heads, N, N])
        attn = F.softmax(paddle.matmul(q, k, transpose_y=True) * self.scale + attention_biases)
        return self.proj(paddle.matmul(attn, v).transpose([0, 2, 1, 3]).reshape([B, N, -1]))


class LeViT(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([LeViTAttention(), LeViTAttention()])
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        for b in self.blocks:
            x = x + b(x)
        return self.head(x.mean(1))


def sparsemax(input, axis=-1):
    input = input - input.max(axis=axis, keepdim=True)
    zs = paddle.sort(input, axis=axis, descending=True)
    d = input.shape[axis]
    rng = paddle.arange(1, d + 1, dtype=input.dtype)
    bound = 1 + rng * zs
    cumsum_zs = paddle.cumsum(zs, axis=axis)
    is_gt = (bound > cumsum_zs).astype(input.dtype)
    k = paddle.max(is_gt * rng, axis=axis, keepdim=True)
    taus = (paddle.sum(is_gt * zs, axis=axis, keepdim=True) - 1) / k
    return paddle.clip(input - taus, min=0)


class TabNet(nn.Layer):
    def __init__(self, d=6, steps=3):
        super().__init__()
        self.steps = steps
        self.att = nn.LayerList([nn.Linear(4, d) for _ in range(steps)])
        self.feat = nn.LayerList([nn.Linear(d, 8) for _ in range(steps)])
        self.bn = nn.BatchNorm1D(d)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        x = self.bn(x)
        prior = paddle.ones_like(x)
        att = paddle.zeros([x.shape[0], 4])
        out, m_loss = 0, 0.0
        for i in range(self.steps):
            M = sparsemax(self.att[i](att) * prior)
            m_loss += paddle.mean(paddle.sum(M * paddle.log(M + 1e-10), axis=1))
            prior = prior * (1.3 - M)
            h = self.feat[i](M * x)
            out = out + F.relu(h[:, :4])
            att = h[:, 4:]
        return self.head(out), m_loss / self.steps


class XLLayer(nn.Layer):
    def __init__(self, d=8, mem_len=4):
        super().__init__()
        self.mem_len = mem_len
        self.q, self.kv, self.o, self.r = nn.Linear(d, d), nn.Linear(d, 2 * d), nn.Linear(d, d), nn.Linear(d, d)
        self.u, self.v = self.create_parameter([d]), self.create_parameter([d])

    def rel_shift(self, x):
        b, q, k = x.shape
        xp = paddle.concat([paddle.zeros([b, q, 1], dtype=x.dtype), x], axis=-1).reshape([b, k + 1, q])
        return xp[:, 1:].reshape([b, q, k])

    def forward(self, x, mem):
        cat = paddle.concat([mem, x], axis=1)
        qlen, klen = x.shape[1], cat.shape[1]
        q = self.q(x)
        k, v = paddle.split(self.kv(cat), 2, axis=-1)
        pos = paddle.arange(klen - 1, -1, -1.0, dtype="float32")
        sinu = paddle.outer(pos, 1 / (10000 ** (paddle.arange(0, 8, 2.0, dtype="float32") / 8)))
        r = self.r(paddle.concat([sinu.sin(), sinu.cos()], axis=-1))
        ac = paddle.matmul(q + self.u, k, transpose_y=True)
        bd = self.rel_shift(paddle.matmul(q + self.v, r, transpose_y=True))
        mask = paddle.triu(paddle.ones([qlen, klen]), diagonal=1 + klen - qlen).astype("bool")
        score = paddle.where(mask, paddle.full_like(ac, -1e9), (ac + bd) * 8 ** -0.5)
        out = self.o(paddle.matmul(F.softmax(score, -1), v)) + x
        return out, paddle.concat([mem, x], axis=1)[:, -self.mem_len:].detach()


class TransformerXL(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.layers = nn.LayerList([XLLayer(), XLLayer()])
        self.head = nn.Linear(8, 10)

    def forward(self, ids, seg_len: int = 3):
        b = ids.shape[0]
        mems = [paddle.zeros([b, 4, 8]) for _ in self.layers]
        logits = []
        for s in range(0, ids.shape[1], seg_len):
            h = self.emb(ids[:, s:s + seg_len])
            new = []
            for layer, m in zip(self.layers, mems):
                h, nm = layer(h, m)
                new.append(nm)
            mems = new
            logits.append(self.head(h))
        return paddle.concat(logits, axis=1)


class SlidingAttention(nn.Layer):
    """Longformer's banded attention written with ``F.unfold`` over the padded keys and values."""

    def __init__(self, d=8, w=1):
        super().__init__()
        self.w = w
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, 3)

    def forward(self, x):
        B, L, D = x.shape
        q, k, v = paddle.split(self.qkv(x), 3, axis=-1)
        win = 2 * self.w + 1
        ku = F.unfold(F.pad(k.transpose([0, 2, 1]).unsqueeze(2), [self.w, self.w, 0, 0]), [1, win]).reshape([B, D, win, L])
        vu = F.unfold(F.pad(v.transpose([0, 2, 1]).unsqueeze(2), [self.w, self.w, 0, 0]), [1, win]).reshape([B, D, win, L])
        s = (q.transpose([0, 2, 1]).unsqueeze(2) * ku).sum(1) / D ** 0.5
        valid = F.unfold(F.pad(paddle.ones([1, 1, 1, L]), [self.w, self.w, 0, 0]), [1, win]).reshape([1, win, L])
        a = F.softmax(paddle.where(valid > 0, s, paddle.full_like(s, -1e4)), axis=1)
        return self.o((a.unsqueeze(1) * vu).sum(2).transpose([0, 2, 1])).mean(1)


class ProbAttention(nn.Layer):
    """Informer's ProbSparse self-attention: the top-u queries attend, the others take the mean of V."""

    def __init__(self, d=8, u=2):
        super().__init__()
        self.u = u
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, 2)

    def forward(self, x):
        B, L, D = x.shape
        q, k, v = paddle.split(self.qkv(x), 3, axis=-1)
        scores = paddle.matmul(q, k, transpose_y=True)
        M_top = paddle.topk(scores.max(-1) - scores.sum(-1) / L, self.u, axis=-1)[1]
        index = M_top.unsqueeze(-1).expand([B, self.u, D])
        context = v.mean(1, keepdim=True).expand([B, L, D]).clone()
        q_red = paddle.take_along_axis(q, index, axis=1)
        attn = F.softmax(paddle.matmul(q_red, k, transpose_y=True) / D ** 0.5, -1)
        context = paddle.put_along_axis(context, index, paddle.matmul(attn, v), axis=1)
        return self.o(context).mean(1)


def _sq(out, b):
    return (out ** 2).mean()


def test_levit_attention_biases_gathered_by_a_buffer_train_like_eager(tmp_path):
    rng = np.random.default_rng(0)
    _same_training(LeViT, [InputSpec([None, 9, 8])],
                   [(rng.standard_normal((b, 9, 8)).astype("float32"),) for b in (2, 3)], _sq, tmp_path)


def test_tabnet_sparsemax_steps_train_like_eager(tmp_path):
    rng = np.random.default_rng(1)
    _same_training(TabNet, [InputSpec([None, 6])], [(rng.standard_normal((b, 6)).astype("float32"),) for b in (4, 5)],
                   lambda o, b: (o[0] ** 2).mean() + 0.01 * o[1], tmp_path)


def test_transformer_xl_memory_over_segments_of_a_run_time_length_trains_like_eager(tmp_path):
    # paddle.triu(diagonal=1 + klen - qlen) under a None length refused: the diagonal was a static Variable
    rng = np.random.default_rng(2)
    batches = [(rng.integers(0, 10, (b, L)).astype("int64"),) for b, L in ((2, 6), (3, 9))]
    _same_training(TransformerXL, [InputSpec([None, None], "int64")], batches,
                   lambda o, b: F.cross_entropy(o.reshape([-1, 10]), paddle.to_tensor(b[0]).reshape([-1, 1])), tmp_path)


def test_triu_and_tril_take_a_diagonal_from_run_time_sizes():
    def masks(q, k):
        d = k.shape[1] - q.shape[1]
        return paddle.triu(paddle.ones([q.shape[1], k.shape[1]]), diagonal=1 + d), paddle.tril(k, diagonal=-d)

    f = dy2st.to_static(masks, input_spec=[InputSpec([None, None]), InputSpec([None, None])])
    rng = np.random.default_rng(3)
    for lq, lk in ((2, 5), (3, 3), (1, 4)):
        q, k = (paddle.to_tensor(rng.standard_normal((2, n)).astype("float32")) for n in (lq, lk))
        for w, g in zip(masks(q, k), f(q, k)):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert len(f.program_cache) == 1


def test_longformer_sliding_window_by_unfold_and_informer_probsparse_train_like_eager(tmp_path):
    rng = np.random.default_rng(4)
    _same_training(SlidingAttention, [InputSpec([None, None, 8])],
                   [(rng.standard_normal((b, L, 8)).astype("float32"),) for b, L in ((2, 5), (3, 7))], _sq, tmp_path / "a")
    _same_training(ProbAttention, [InputSpec([None, 6, 8])],
                   [(rng.standard_normal((b, 6, 8)).astype("float32"),) for b in (2, 3)], _sq, tmp_path / "b")


def _segments(x):
    outs = []
    for s in range(0, x.shape[1], 3):
        outs.append(x[:, s:s + 3] * 2)
    return paddle.concat(outs, 1)


def test_a_shorter_last_segment_appended_in_a_tensor_loop_is_refused_not_regrouped():
    # the stacked list was reshaped to the new item's dims: rows of a [2, 2] last segment mixed silently
    f = dy2st.to_static(_segments, input_spec=[InputSpec([None, None])])
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(2, 6))
    np.testing.assert_array_equal(f(x).numpy(), _segments(x).numpy())
    with pytest.raises(ValueError, match="other run-time dims than the items before it"):
        f(paddle.to_tensor(np.arange(16, dtype="float32").reshape(2, 8)))


class Encoder(nn.Layer):
    def __init__(self, rnn="gru"):
        super().__init__()
        self.enc = {"gru": lambda: nn.GRU(4, 4), "simple": lambda: nn.SimpleRNN(4, 4, direction="bidirect"),
                    "lstm": lambda: nn.LSTM(4, 3, num_layers=2, direction="bidirect")}[rnn]()

    def forward(self, x):
        enc, _ = self.enc(x)
        return (enc * enc).sum()


@pytest.mark.parametrize("rnn", ["gru", "simple", "lstm"])
def test_rnns_over_a_run_time_length_have_eagers_gradients_bitwise(rnn):
    # over a None time dim (a while op) the step that is both output and next state summed its gradient
    # parts in another order than eager (~1 ulp): the later steps' parts first, then the output's
    x = np.random.default_rng(0).standard_normal((2, 5, 4)).astype("float32")
    grads = []
    for convert in (False, True):
        paddle.seed(1)
        net = Encoder(rnn)
        f = dy2st.to_static(net, input_spec=[InputSpec([None, None, 4])]) if convert else net
        xt = paddle.to_tensor(x, stop_gradient=False)
        f(xt).backward()
        grads.append([xt.grad.numpy()] + [p.grad.numpy() for p in net.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_array_equal(b, a)
