"""More user code ported by changing imports, each with data-dependent control flow: a PGL-style GAT
layer (an edge softmax by ``paddle.geometric`` segment ops over a ``None`` number of edges), PaddleRec's
DIEN (an interest extractor GRU and an attention-gated AUGRU looped over a run-time number of steps,
with its auxiliary loss), a Neural Turing Machine (content and location addressing, a circular shift by
``roll``, carried memory), PaddleSpeech's CTC greedy search written with tensors (duplicates and blanks
dropped in a ``while`` over time) and PABEE's patience-based early exit over a stack of layers (a tensor
``break`` at inference). Trained under ``to_static`` they equal eager bitwise and serve any batch (and
length) from one Program, saved and loaded."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import seeded
from tests.compat.port_checks import same_training as _same_training


class GATConv(nn.Layer):
    def __init__(self, input_size, hidden_size, num_heads=2, concat=True, activation=None):
        super().__init__()
        self.num_heads, self.hidden_size, self.concat, self.activation = num_heads, hidden_size, concat, activation
        self.linear = nn.Linear(input_size, num_heads * hidden_size)
        self.weight_src = self.create_parameter(shape=[num_heads, hidden_size])
        self.weight_dst = self.create_parameter(shape=[num_heads, hidden_size])
        self.leaky_relu = nn.LeakyReLU(negative_slope=0.2)

    def _send_attention(self, src_feat, dst_feat):
        alpha = self.leaky_relu(src_feat["src"] + dst_feat["dst"])
        return {"alpha": alpha, "h": src_feat["h"]}

    def _reduce_attention(self, msg, dst, num_nodes):
        # PGL's msg.reduce_softmax: a softmax over the edges into each node
        alpha = msg["alpha"]
        alpha = paddle.exp(alpha - paddle.gather(paddle.geometric.segment_max(alpha, dst), dst))
        alpha = alpha / paddle.gather(paddle.geometric.segment_sum(alpha, dst), dst)
        feature = paddle.reshape(msg["h"], [-1, self.num_heads, self.hidden_size])
        feature = feature * paddle.reshape(alpha, [-1, self.num_heads, 1])
        return paddle.geometric.segment_sum(feature, dst)

    def forward(self, edges, feature):
        src, dst = edges[:, 0], edges[:, 1]
        feature = paddle.reshape(self.linear(feature), [-1, self.num_heads, self.hidden_size])
        attn_src = paddle.sum(feature * self.weight_src, axis=-1)
        attn_dst = paddle.sum(feature * self.weight_dst, axis=-1)
        msg = self._send_attention({"src": paddle.gather(attn_src, src), "h": paddle.gather(feature, src)},
                                   {"dst": paddle.gather(attn_dst, dst)})
        output = self._reduce_attention(msg, dst, feature.shape[0])
        if self.concat:
            output = paddle.reshape(output, [-1, self.num_heads * self.hidden_size])
        else:
            output = paddle.mean(output, axis=1)
        if self.activation is not None:
            output = self.activation(output)
        return output


class GAT(nn.Layer):
    def __init__(self):
        super().__init__()
        self.gat1 = GATConv(5, 4, activation=F.elu)
        self.gat2 = GATConv(8, 3, num_heads=2, concat=False)

    def forward(self, edges, feature, train_index):
        logits = self.gat2(edges, self.gat1(edges, feature))
        return paddle.gather(logits, train_index)


def _graph(rng, n, extra):
    # self loops (as PGL's GAT examples add) and random edges, sorted by destination for the segment ops
    e = np.concatenate([np.stack([np.arange(n)] * 2, 1), rng.integers(0, n, (extra, 2))])
    e = e[np.lexsort((e[:, 0], e[:, 1]))]
    return e.astype("int64"), rng.standard_normal((n, 5)).astype("float32"), rng.permutation(n)[:3].astype("int64")


def test_gat_edge_softmax_trains_like_eager_for_any_graph(tmp_path):
    rng = np.random.default_rng(0)
    batches = [_graph(rng, 6, 9), _graph(rng, 7, 4), _graph(rng, 5, 12)]
    specs = [InputSpec([None, 2], "int64"), InputSpec([None, 5]), InputSpec([None], "int64")]
    _same_training(GAT, specs, batches, lambda o, b: F.cross_entropy(o, paddle.to_tensor(b[2] % 3)), tmp_path)


class AUGRUCell(nn.Layer):
    """DIEN's GRU with attentional update gate: the update gate scaled by the attention score."""

    def __init__(self, d):
        super().__init__()
        self.x2h = nn.Linear(d, 3 * d)
        self.h2h = nn.Linear(d, 3 * d, bias_attr=False)

    def forward(self, x, h, att):
        xr, xz, xn = paddle.split(self.x2h(x), 3, axis=1)
        hr, hz, hn = paddle.split(self.h2h(h), 3, axis=1)
        r = F.sigmoid(xr + hr)
        z = F.sigmoid(xz + hz) * att
        n = paddle.tanh(xn + r * hn)
        return (1 - z) * h + z * n


class DIEN(nn.Layer):
    def __init__(self, items=20, d=6):
        super().__init__()
        self.emb = nn.Embedding(items, d, padding_idx=0)
        self.gru = nn.GRU(d, d)
        self.att = nn.Sequential(nn.Linear(4 * d, 8), nn.Sigmoid(), nn.Linear(8, 1))
        self.augru = AUGRUCell(d)
        self.aux = nn.Sequential(nn.Linear(2 * d, 4), nn.Sigmoid(), nn.Linear(4, 1))
        self.out = nn.Sequential(nn.Linear(2 * d, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, hist, neg_hist, target):
        mask = (hist != 0).astype("float32")  # B, T
        e, neg, t = self.emb(hist), self.emb(neg_hist), self.emb(target)
        interests, _ = self.gru(e)
        # auxiliary loss: h_t against the clicked e_{t+1} and a sampled negative
        h, m = interests[:, :-1], mask[:, 1:]
        pos = F.sigmoid(self.aux(paddle.concat([h, e[:, 1:]], -1)).squeeze(-1))
        ng = F.sigmoid(self.aux(paddle.concat([h, neg[:, 1:]], -1)).squeeze(-1))
        aux_loss = -((paddle.log(pos + 1e-8) + paddle.log(1 - ng + 1e-8)) * m).sum() / (m.sum() + 1e-8)
        q = t.unsqueeze(1).expand_as(interests)
        scores = self.att(paddle.concat([q, interests, q - interests, q * interests], -1)).squeeze(-1)
        scores = paddle.where(mask > 0, scores, paddle.full_like(scores, -1e9))
        att = F.softmax(scores, -1)
        state = paddle.zeros_like(t)
        for i in range(hist.shape[1]):
            new = self.augru(interests[:, i], state, att[:, i:i + 1])
            state = paddle.where(mask[:, i:i + 1] > 0, new, state)
        logit = self.out(paddle.concat([state, t], -1)).squeeze(-1)
        return logit, aux_loss


def _behaviours(rng, b, n):
    lens = rng.integers(1, n + 1, b)
    hist = rng.integers(1, 20, (b, n)) * (np.arange(n)[None] < lens[:, None])
    return hist.astype("int64"), rng.integers(1, 20, (b, n)).astype("int64"), rng.integers(1, 20, b).astype("int64")


def test_dien_augru_over_a_run_time_history_length_trains_like_eager(tmp_path):
    rng = np.random.default_rng(1)
    batches = [_behaviours(rng, 3, 5), _behaviours(rng, 2, 4), _behaviours(rng, 4, 6)]
    label = lambda b: paddle.to_tensor((b[2] % 2).astype("float32"))  # noqa: E731
    _same_training(DIEN, [InputSpec([None, None], "int64")] * 2 + [InputSpec([None], "int64")], batches,
                   lambda o, b: F.binary_cross_entropy_with_logits(o[0], label(b)) + 0.5 * o[1], tmp_path)


class NTM(nn.Layer):
    """A Neural Turing Machine (one read and one write head) over a run-time number of steps; at
    inference it stops once every sequence has emitted its end flag."""

    def __init__(self, n_in=4, n_out=4, ctrl=8, N=6, M=4):
        super().__init__()
        self.N, self.M = N, M
        self.controller = nn.LSTMCell(n_in + M, ctrl)
        self.read_fc = nn.Linear(ctrl, M + 1 + 1 + 3 + 1)  # k, beta, g, s, gamma
        self.write_fc = nn.Linear(ctrl, M + 1 + 1 + 3 + 1 + 2 * M)  # ... and erase, add
        self.out = nn.Linear(ctrl + M, n_out)
        self.register_buffer("mem_bias", paddle.to_tensor(
            np.random.default_rng(0).uniform(-0.1, 0.1, (N, M)).astype("float32")))

    def _address(self, o, w_prev, memory):
        M = self.M
        k, beta = o[:, :M], F.softplus(o[:, M:M + 1])
        g, s, gamma = F.sigmoid(o[:, M + 1:M + 2]), F.softmax(o[:, M + 2:M + 5], -1), 1 + F.softplus(o[:, M + 5:M + 6])
        wc = F.softmax(beta * F.cosine_similarity(memory + 1e-16, k.unsqueeze(1) + 1e-16, axis=-1), axis=1)
        wg = g * wc + (1 - g) * w_prev
        w_hat = s[:, 0:1] * paddle.roll(wg, 1, axis=1) + s[:, 1:2] * wg + s[:, 2:3] * paddle.roll(wg, -1, axis=1)
        w = w_hat ** gamma
        return w / (paddle.sum(w, axis=1, keepdim=True) + 1e-16)

    def forward(self, x):
        B = x.shape[0]
        memory = self.mem_bias.unsqueeze(0).tile([B, 1, 1])
        r = paddle.zeros([B, self.M])
        w_r = paddle.zeros([B, self.N])
        w_w = paddle.zeros([B, self.N])
        state = self.controller.get_initial_states(batch_ref=x, shape=self.controller.state_shape)
        outs = []
        for t in range(x.shape[1]):
            h, state = self.controller(paddle.concat([x[:, t], r], -1), state)
            ow = self.write_fc(h)
            w_w = self._address(ow, w_w, memory)
            e, a = F.sigmoid(ow[:, -2 * self.M:-self.M]), paddle.tanh(ow[:, -self.M:])
            memory = memory * (1 - w_w.unsqueeze(-1) * e.unsqueeze(1)) + w_w.unsqueeze(-1) * a.unsqueeze(1)
            w_r = self._address(self.read_fc(h), w_r, memory)
            r = paddle.matmul(w_r.unsqueeze(1), memory).squeeze(1)
            y = F.sigmoid(self.out(paddle.concat([h, r], -1)))
            outs.append(y)
            if not self.training and paddle.all(y[:, -1] > 0.5):
                break
        return paddle.stack(outs, 1)


def test_ntm_addressing_and_memory_over_a_run_time_length_train_like_eager(tmp_path):
    rng = np.random.default_rng(2)
    batches = [(rng.integers(0, 2, (b, n, 4)).astype("float32"),) for b, n in ((2, 4), (3, 3))]
    _same_training(NTM, [InputSpec([None, None, 4])], batches,
                   lambda o, b: F.binary_cross_entropy(o, paddle.to_tensor(b[0][:, ::-1].copy())), tmp_path)


def test_ntm_inference_stops_when_every_sequence_raised_its_end_flag():
    net = seeded(NTM(), seed=3, scale=0.8).eval()
    f = dy2st.to_static(seeded(NTM(), seed=3, scale=0.8).eval(), input_spec=[InputSpec([None, None, 4])])
    rng = np.random.default_rng(3)
    lengths = set()
    for b, n in ((2, 8), (3, 6), (1, 9), (4, 7)):
        x = paddle.to_tensor(rng.integers(0, 2, (b, n, 4)).astype("float32"))
        want, got = net(x), f(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        lengths.add((got.shape[1], n))
    assert any(m < n for m, n in lengths) and any(m == n for m, n in lengths)  # both exits are taken
    assert len(f.forward.program_cache) == 1


class CTCModel(nn.Layer):
    """A small conv encoder with a CTC head; at inference PaddleSpeech's ``ctc_greedy_search``
    (best path, then duplicates and blanks dropped) written with tensors over a run-time length."""

    def __init__(self, feat=6, d=8, vocab=5, blank=0):
        super().__init__()
        self.blank = blank
        self.conv = nn.Sequential(nn.Conv1D(feat, d, 3, padding=1), nn.ReLU(), nn.Conv1D(d, d, 3, padding=1))
        self.ctc_lo = nn.Linear(d, vocab)

    def ctc_greedy_search(self, log_probs, lens):
        batch_size, maxlen = log_probs.shape[0], log_probs.shape[1]
        topk_prob, topk_index = log_probs.topk(1, axis=2)
        best = topk_index.reshape([batch_size, maxlen])
        hyps = paddle.full([batch_size, maxlen], -1, "int64")
        n = paddle.zeros([batch_size], "int64")
        prev = paddle.full([batch_size], self.blank, "int64")
        t = 0
        while t < maxlen:
            tok = best[:, t]
            valid = lens > t
            keep = (tok != prev) & (tok != self.blank) & valid
            cur = paddle.take_along_axis(hyps, n.unsqueeze(1), axis=1).squeeze(1)
            hyps = paddle.put_along_axis(hyps, n.unsqueeze(1), paddle.where(keep, tok, cur).unsqueeze(1), axis=1)
            n += keep.astype("int64")
            prev = paddle.where(valid, tok, prev)
            t += 1
        return hyps[:, :int(n.max())], n

    def forward(self, feats, lens, labels, label_lens):
        h = self.conv(feats.transpose([0, 2, 1])).transpose([0, 2, 1])
        log_probs = F.log_softmax(self.ctc_lo(h), axis=-1)
        if not self.training:
            return self.ctc_greedy_search(log_probs, lens)
        return F.ctc_loss(log_probs.transpose([1, 0, 2]), labels, lens, label_lens, blank=self.blank)


def _remove_duplicates_and_blank(hyp, blank=0):
    new_hyp, cur = [], 0
    while cur < len(hyp):
        if hyp[cur] != blank:
            new_hyp.append(hyp[cur])
        prev = cur
        while cur < len(hyp) and hyp[cur] == hyp[prev]:
            cur += 1
    return new_hyp


def _speech(rng, b, t):
    lens = rng.integers(t // 2, t + 1, b)
    lens[0] = t
    return (rng.standard_normal((b, t, 6)).astype("float32"), lens.astype("int64"),
            rng.integers(1, 5, (b, 2)).astype("int32"), np.full(b, 2, "int64"))


def test_ctc_model_trains_like_eager_and_its_greedy_search_decodes_as_paddlespeech(tmp_path):
    rng = np.random.default_rng(4)
    batches = [_speech(rng, 2, 9), _speech(rng, 3, 7), _speech(rng, 2, 11)]
    specs = [InputSpec([None, None, 6]), InputSpec([None], "int64"), InputSpec([None, 2], "int32"),
             InputSpec([None], "int64")]
    _same_training(CTCModel, specs, batches, lambda o, b: o, tmp_path)
    net = seeded(CTCModel(), seed=5, scale=1.0).eval()
    f = dy2st.to_static(seeded(CTCModel(), seed=5, scale=1.0).eval(), input_spec=specs)
    for b, t in ((2, 9), (3, 12), (1, 5)):
        batch = [paddle.to_tensor(v) for v in _speech(rng, b, t)]
        (want, want_n), (got, got_n) = net(*batch), f(*batch)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(got_n.numpy(), want_n.numpy())
        h = net.conv(batch[0].transpose([0, 2, 1])).transpose([0, 2, 1])
        best = net.ctc_lo(h).argmax(-1).numpy()
        for row, length, hyp, m in zip(best, batch[1].numpy(), got.numpy(), got_n.numpy()):
            assert list(hyp[:m]) == _remove_duplicates_and_blank(list(row[:length])) and (hyp[m:] == -1).all()
    assert len(f.forward.program_cache) == 1


class DeepSpeech2(nn.Layer):
    """PaddleSpeech's DeepSpeech2: Conv2dSubsampling4Pure, RNN layers over the subsampled lengths
    (``sequence_length``), a CTC head."""

    def __init__(self, feat_size=12, dict_size=5, rnn_size=6, use_gru=True, direction="forward"):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2D(1, 4, 3, 2), nn.ReLU(), nn.Conv2D(4, 4, 3, 2), nn.ReLU())
        i_size = ((feat_size - 1) // 2 - 1) // 2 * 4
        size = rnn_size * (2 if direction == "bidirect" else 1)
        self.rnn, self.layernorm_list = nn.LayerList(), nn.LayerList()
        for i in range(2):
            cls = nn.GRU if use_gru else nn.LSTM
            self.rnn.append(cls(input_size=i_size if i == 0 else size, hidden_size=rnn_size, num_layers=1,
                                direction=direction))
            self.layernorm_list.append(nn.LayerNorm(size))
        self.ctc_lo = nn.Linear(size, dict_size)

    def forward(self, audio, audio_len, text, text_len):
        x = self.conv(audio.unsqueeze(1))
        b, c, t, f = x.shape
        x = x.transpose([0, 2, 1, 3]).reshape([b, -1, c * f])
        x_lens = ((audio_len - 1) // 2 - 1) // 2
        for i in range(len(self.rnn)):
            x, final_state = self.rnn[i](x, None, x_lens)
            x = self.layernorm_list[i](x)
        logits = self.ctc_lo(x).transpose([1, 0, 2])
        loss = F.ctc_loss(F.log_softmax(logits, axis=-1), text, x_lens, text_len, blank=0, reduction="sum")
        return loss / b


@pytest.mark.parametrize("use_gru, direction", [(True, "forward"), (False, "bidirect")])
def test_deepspeech2_rnns_over_subsampled_lengths_train_like_eager(tmp_path, use_gru, direction):
    rng = np.random.default_rng(7)
    batches = [_speech(rng, 2, 17), _speech(rng, 3, 21)]
    batches = [(np.concatenate([x, x], -1), lens, y, n) for x, lens, y, n in batches]  # 12 features
    specs = [InputSpec([None, None, 12]), InputSpec([None], "int64"), InputSpec([None, 2], "int32"),
             InputSpec([None], "int64")]
    _same_training(lambda: DeepSpeech2(use_gru=use_gru, direction=direction), specs, batches, lambda o, b: o, tmp_path)

class PABEE(nn.Layer):
    """ALBERT/BERT with patience-based early exit: one classifier per layer, all trained; at inference
    the layers stop once ``patience`` classifiers in a row agreed."""

    def __init__(self, vocab=20, d=8, num_layers=3, classes=3, patience=2):
        super().__init__()
        self.patience = patience
        self.embeddings = nn.Embedding(vocab, d)
        self.layers = nn.LayerList([nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0) for _ in range(num_layers)])
        self.classifiers = nn.LayerList([nn.Linear(d, classes) for _ in range(num_layers)])

    def forward(self, input_ids):
        hidden = self.embeddings(input_ids)
        if self.training:
            res = []
            for layer, classifier in zip(self.layers, self.classifiers):
                hidden = layer(hidden)
                res.append(classifier(hidden[:, 0]))
            return paddle.stack(res)
        patient_counter = 0
        patient_result = None
        calculated_layer_num = 0
        for layer, classifier in zip(self.layers, self.classifiers):
            hidden = layer(hidden)
            logits = classifier(hidden[:, 0])
            calculated_layer_num += 1
            if patient_result is not None and paddle.all(logits.argmax(-1) == patient_result.argmax(-1)):
                patient_counter += 1
            else:
                patient_counter = 0
            patient_result = logits
            if patient_counter == self.patience:
                break
        return patient_result, calculated_layer_num


def _pabee_loss(o, b):
    label = paddle.to_tensor(b[0][:, 0] % 3)
    losses = [F.cross_entropy(o[i], label) * (i + 1) for i in range(o.shape[0])]
    return paddle.add_n(losses) / sum(range(1, o.shape[0] + 1))


def test_pabee_trains_every_exit_like_eager_and_exits_early_at_inference(tmp_path):
    rng = np.random.default_rng(6)
    batches = [(rng.integers(0, 20, (b, n)),) for b, n in ((2, 5), (3, 4))]
    _same_training(PABEE, [InputSpec([None, None], "int64")], batches, _pabee_loss, tmp_path)
    net = seeded(PABEE(patience=1), seed=5).eval()
    f = dy2st.to_static(seeded(PABEE(patience=1), seed=5).eval(), input_spec=[InputSpec([None, None], "int64")])
    used, inputs = set(), []
    for i in range(6):
        x = paddle.to_tensor(rng.integers(0, 20, (1 + i % 4 // 3, 3 + i % 3)))
        (want, want_n), (got, got_n) = net(x), f(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert int(got_n) == want_n
        used.add(want_n)
        inputs.append((x, want))
    assert min(used) < 3 and len(used) > 1  # exits at different depths
    assert len(f.forward.program_cache) == 1
    dy2st.save(f, str(tmp_path / "pabee"))
    loaded = dy2st.load(str(tmp_path / "pabee"))
    for x, want in inputs:
        np.testing.assert_array_equal(loaded(x)[0].numpy(), want.numpy())
