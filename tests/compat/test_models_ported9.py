"""More user code ported by changing imports: a seq2seq decoder with ``nn.BeamSearchDecoder`` and
``nn.dynamic_decode`` converted (the decoding loop a ``while`` op that stops when every beam has
ended), ERNIE-style padding masks with a pooler, PP-LCNet / ShuffleNetV2 / HRNet blocks, DETR box
losses, a FastSpeech length regulator, DIN / DeepFM CTR models, a CRF Viterbi decode with tensor
while loops and an NT-Xent loss. Converted equals eager bitwise; expected numbers were recorded with
PaddlePaddle 3.3."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

V, D = 7, 6


class Seq2SeqBeam(nn.Layer):
    def __init__(self, beam=3, max_len=5):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.cell = nn.GRUCell(D, D)
        self.out = nn.Linear(D, V)
        self.decoder = nn.BeamSearchDecoder(self.cell, start_token=0, end_token=1, beam_size=beam,
                                            embedding_fn=self.emb, output_fn=self.out)
        self.max_len = max_len

    def forward(self, h0):
        outputs, states, lengths = nn.dynamic_decode(self.decoder, inits=h0, max_step_num=self.max_len,
                                                     return_length=True)
        return outputs, states.log_probs, lengths


def _seeded(net, rng, scale=0.5):
    sd = net.state_dict()
    net.set_state_dict({k: paddle.to_tensor((rng.standard_normal(sd[k].shape) * scale).astype("float32"))
                        for k in sorted(sd)})
    return net


def test_beam_search_dynamic_decode_converts_to_one_while_loop_for_any_batch(tmp_path):
    # dynamic_decode raised NotImplementedError under to_static
    rng = np.random.default_rng(0)
    net = Seq2SeqBeam()
    _seeded(net, rng)
    net.out.bias.set_value(paddle.to_tensor(np.where(np.arange(V) == 1, 2.0, 0.0).astype("float32")))  # EOS likely
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, D], "float32")])
    steps = set()
    for scale, b in ((0.3, 2), (1.0, 2), (3.0, 2), (3.0, 1), (1.0, 3)):
        h0 = paddle.to_tensor((rng.standard_normal((b, D)) * scale).astype("float32"))
        want, got = net(h0), conv(h0)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        steps.add(want[0].shape[1])
        if scale == 0.3:  # PaddlePaddle 3.3
            assert want[0].numpy().tolist() == [[[1, 3, 5], [1, 1, 1]], [[1, 0, 5], [1, 1, 1]]]
            assert want[2].numpy().tolist() == [[1, 2, 2], [1, 2, 2]]
            np.testing.assert_allclose(want[1].numpy(), [[-0.48754, -2.92782, -3.24069], [-0.60733, -2.8944, -2.9876]],
                                       atol=2e-5)
    assert steps == {2, 6}  # every beam ended after 2 steps, or max_step_num + 1 steps were taken
    assert len(conv.forward.program_cache) == 1
    prog = conv.forward.program_cache.last().main_program
    assert "while" in [op.type for op in prog.global_block().ops]
    dy2st.save(conv, str(tmp_path / "beam"))
    loaded = dy2st.load(str(tmp_path / "beam"))
    h0 = paddle.to_tensor(rng.standard_normal((4, D)).astype("float32"))
    for w, g in zip(net(h0), loaded(h0)):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_a_tensor_kept_on_a_layer_from_inside_a_converted_loop_is_refused_by_name():
    class Keeps(nn.Layer):
        def forward(self, x):
            def body(i, x):
                self.last = x * 2.0
                return i + 1, x + 1.0
            return paddle.static.nn.while_loop(lambda i, x: i < 3, body, [paddle.zeros([1], "int64"), x])[1]

    with pytest.raises(ValueError, match=r"self\.last is set to a tensor made inside a loop or branch"):
        dy2st.to_static(Keeps())(paddle.ones([2]))


class BNNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 8, bias_attr=False)
        self.bn = nn.BatchNorm1D(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


class ModelEMA:
    """PaddleDetection's weight EMA: a decay warming up with the step count, over the state dict."""

    def __init__(self, model, decay=0.9):
        self.decay, self.step = decay, 0
        self.state = {k: paddle.zeros_like(v) for k, v in model.state_dict().items()}

    def update(self, model):
        decay = min(self.decay, (1 + self.step) / (10 + self.step))
        with paddle.no_grad():
            for k, v in model.state_dict().items():
                self.state[k] = decay * self.state[k] + (1 - decay) * v.detach()
        self.step += 1


def _train_with_groups_warmup_clip_and_ema(net, model):
    rng = np.random.default_rng(1)
    sched = paddle.optimizer.lr.LinearWarmup(paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=3), warmup_steps=2,
                                             start_lr=0.0, end_lr=0.1)
    opt = paddle.optimizer.AdamW(learning_rate=sched, parameters=[
        {"params": net.fc1.parameters(), "learning_rate": 0.5, "weight_decay": 0.0},
        {"params": net.bn.parameters() + net.fc2.parameters(), "beta1": 0.8, "epsilon": 1e-4}],
        weight_decay=0.05, grad_clip=nn.ClipGradByGlobalNorm(0.5), apply_decay_param_fun=lambda n: n.endswith("w_0"))
    ema = ModelEMA(net)
    losses, lrs = [], []
    for _ in range(4):
        x, y = rng.standard_normal((6, 5)).astype("float32"), rng.integers(0, 3, (6,))
        loss = F.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        lrs.append(opt.get_lr())
        sched.step()
        losses.append(float(loss))
        ema.update(net)
    return losses, lrs, ema


def test_adamw_with_group_betas_warmup_cosine_global_norm_clip_and_weight_ema_trains_as_paddle():
    # a parameter group's beta1 / epsilon (Paddle's _update_param_group) were ignored
    runs = []
    for convert in (False, True):
        net = BNNet()
        rng = np.random.default_rng(0)
        sd = net.state_dict()
        draws = {k: rng.standard_normal(sd[k].shape) * 0.5 for k in sorted(sd)}
        net.set_state_dict({k: paddle.to_tensor((np.abs(v) + 0.5 if "variance" in k else v).astype("float32"))
                            for k, v in draws.items()})
        runs.append((net,) + _train_with_groups_warmup_clip_and_ema(net, dy2st.to_static(net) if convert else net))
    (eager, losses, lrs, ema), (net, closses, clrs, cema) = runs
    assert closses == losses and clrs == lrs
    for k, v in ema.state.items():
        np.testing.assert_array_equal(cema.state[k].numpy(), v.numpy(), err_msg=k)
    # PaddlePaddle 3.3
    np.testing.assert_allclose(losses, [1.2256376, 1.2456766, 1.1515588, 1.029307], rtol=2e-6)
    np.testing.assert_allclose(lrs, [0.0, 0.05, 0.1, 0.075], rtol=1e-12)
    np.testing.assert_allclose(eager.fc2.weight.numpy()[0], [-0.5121332, -0.3235094, 0.3142213], rtol=2e-5)
    np.testing.assert_allclose(ema.state["fc2.weight"].numpy()[0], [-0.5272842, -0.325784, 0.3315065], rtol=2e-5)
    # the EMA weights served by the converted model in eval mode
    for m in (eager, net):
        m.set_state_dict(ema.state)
        m.eval()
    x = paddle.to_tensor(np.random.default_rng(2).standard_normal((3, 5)).astype("float32"))
    np.testing.assert_array_equal(dy2st.to_static(net)(x).numpy(), eager(x).numpy())


def _gather_scatter_einsum(x, y, idx):
    a = paddle.einsum("bij,bjk->bik", x, y)
    trace = paddle.einsum("bii->b", x)
    outer = paddle.einsum("bi,bj->bij", x[:, 0], y[:, :, 0])
    picked = paddle.take_along_axis(a, idx, axis=2)
    put = paddle.put_along_axis(a, idx, picked * 2.0, axis=2)
    added = paddle.put_along_axis(a, idx, picked, axis=2, reduce="add")
    rows = paddle.scatter(x.reshape([-1, 3]), paddle.to_tensor([1, 0]), y.reshape([-1, 4])[:2, :3])
    return a, trace, outer, picked, put, added, rows


def test_einsum_take_put_along_axis_and_scatter_serve_any_batch_with_gradients():
    # the gradient of einsum('bii->b') refused the unknown batch dim ("repeated subscripts need known dims")
    conv = dy2st.to_static(_gather_scatter_einsum, input_spec=[InputSpec([None, 3, 3]), InputSpec([None, 3, 4]),
                                                               InputSpec([None, 3, 1], "int64")])
    rng = np.random.default_rng(0)
    for b in (2, 3):
        args = [rng.standard_normal((b, 3, 3)), rng.standard_normal((b, 3, 4)), rng.integers(0, 4, (b, 3, 1))]
        runs = []
        for f in (_gather_scatter_einsum, conv):
            ins = [paddle.to_tensor(v.astype("float32"), stop_gradient=False) for v in args[:2]] + [
                paddle.to_tensor(args[2])]
            outs = f(*ins)
            sum((o * (k + 1.0)).sum() for k, o in enumerate(outs)).backward()
            runs.append([o.numpy() for o in outs] + [ins[0].grad.numpy(), ins[1].grad.numpy()])
        for want, got in zip(*runs):
            np.testing.assert_array_equal(got, want)
    # the diagonal's own dims are still needed to build it
    with pytest.raises(NotImplementedError, match="repeated subscripts"):
        f = dy2st.to_static(lambda m: paddle.einsum("iij->j", m), input_spec=[InputSpec([None, None, 2])])
        m = paddle.ones([2, 2, 2])
        m.stop_gradient = False
        f(m).sum().backward()


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    return paddle.stack([x_c - 0.5 * w, y_c - 0.5 * h, x_c + 0.5 * w, y_c + 0.5 * h], axis=-1)


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def generalized_box_iou(boxes1, boxes2):
    """DETR's pairwise GIoU: IoU minus the share of the enclosing box the union leaves empty."""
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = paddle.maximum(boxes1.unsqueeze(1)[:, :, :2], boxes2[:, :2])
    rb = paddle.minimum(boxes1.unsqueeze(1)[:, :, 2:], boxes2[:, 2:])
    wh = (rb - lt).clip(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1.unsqueeze(1) + area2 - inter
    lt = paddle.minimum(boxes1.unsqueeze(1)[:, :, :2], boxes2[:, :2])
    rb = paddle.maximum(boxes1.unsqueeze(1)[:, :, 2:], boxes2[:, 2:])
    wh = (rb - lt).clip(min=0)
    area = wh[:, :, 0] * wh[:, :, 1]
    return inter / union - (area - union) / area


def detr_box_loss(pred, tgt):
    giou = generalized_box_iou(box_cxcywh_to_xyxy(pred), box_cxcywh_to_xyxy(tgt))
    return F.l1_loss(pred, tgt, reduction="sum") + (1 - paddle.diag(giou)).sum(), giou


def length_regulator(x, durations):
    """FastSpeech: each phoneme's encoding repeated for its (tensor) duration, rows padded to the longest."""
    out = [paddle.repeat_interleave(x[i], durations[i], axis=0) for i in range(x.shape[0])]
    max_len = max([o.shape[0] for o in out])
    return paddle.stack([F.pad(o, [0, max_len - o.shape[0], 0, 0]) for o in out])


def expand_by_alignment(encodings, durations):
    """PaddleSpeech's LengthRegulator.expand: an alignment matrix filled by slices with tensor bounds."""
    batch_size, t_enc = paddle.shape(durations)
    t_dec = paddle.max(paddle.sum(durations, -1))
    M = paddle.zeros([batch_size, t_dec, t_enc])
    for i in range(batch_size):
        k = 0
        for j in range(t_enc):
            d = durations[i, j]
            if d >= 1:
                M[i, k:k + d, j] = 1
            k += d
    return paddle.matmul(M, encodings)


def _grads_equal(fn, conv, args, grad_args):
    runs = []
    for f in (fn, conv):
        ins = [paddle.to_tensor(a, stop_gradient=i not in grad_args) for i, a in enumerate(args)]
        outs = f(*ins)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        sum((o * (k + 1.0)).sum() for k, o in enumerate(outs) if o.dtype == "float32").backward()
        runs.append([o.numpy() for o in outs] + [ins[i].gradient() for i in grad_args])
    for want, got in zip(*runs):
        assert (got is None) == (want is None)
        np.testing.assert_array_equal(got, want)
    return runs[0]


def test_detr_giou_loss_and_fastspeech_length_regulators_as_eager_and_paddle():
    rng = np.random.default_rng(0)
    conv = dy2st.to_static(detr_box_loss, input_spec=[InputSpec([None, 4]), InputSpec([None, 4])])
    for n in (3, 5):
        boxes = [rng.uniform(0.2, 0.6, (n, 4)).astype("float32") for _ in range(2)]
        got = _grads_equal(detr_box_loss, conv, boxes, (0,))
        if n == 3:  # PaddlePaddle 3.3
            np.testing.assert_allclose(got[0], 4.650934, rtol=1e-5)
            np.testing.assert_allclose(got[2][0], [1.641414, 3.362102, 0.326459, 0.870934], rtol=1e-4, atol=1e-6)
    x = rng.standard_normal((2, 4, 3)).astype("float32")
    for durations in (np.array([[1, 2, 0, 3], [2, 2, 1, 1]]), np.array([[0, 0, 1, 0], [4, 1, 0, 2]])):
        want = _grads_equal(length_regulator, dy2st.to_static(length_regulator), [x, durations], (0,))
        assert want[0].shape == (2, durations.sum(1).max(), 3)
        got = _grads_equal(expand_by_alignment, dy2st.to_static(expand_by_alignment, input_spec=[
            InputSpec([None, None, 3]), InputSpec([None, None], "int64")]), [x, durations], (0,))
        np.testing.assert_array_equal(got[0], want[0])


def viterbi_decode(emissions, transitions, lengths):
    """A BiLSTM-CRF's Viterbi decode written with tensor while loops: the best scores forward (a
    back-pointer table written by rows), then the path traced back with take_along_axis."""
    b, t, n = emissions.shape[0], paddle.shape(emissions)[1], emissions.shape[2]
    score = emissions[:, 0]
    history = paddle.zeros([t, b, n], "int64")
    i = 1
    while i < t:
        cand = score.unsqueeze(2) + transitions.unsqueeze(0)
        live = (i < lengths).unsqueeze(1)
        score = paddle.where(live, paddle.max(cand, axis=1) + emissions[:, i], score)
        history[i] = paddle.where(live, paddle.argmax(cand, axis=1), paddle.arange(n).unsqueeze(0).expand([b, n]))
        i += 1
    last = paddle.argmax(score, axis=1, keepdim=True)
    path = paddle.zeros([b, t], "int64")
    path[:, t - 1] = last.squeeze(1)
    j = t - 1
    while j > 0:
        last = paddle.take_along_axis(history[j], last, axis=1)
        path[:, j - 1] = last.squeeze(1)
        j -= 1
    return paddle.max(score, axis=1), path


def nt_xent(z1, z2, temperature=0.5):
    """SimCLR's NT-Xent: each view's positive is the other view of the same image."""
    b = z1.shape[0]
    z = F.normalize(paddle.concat([z1, z2], axis=0), axis=1)
    sim = paddle.matmul(z, z, transpose_y=True) / temperature - paddle.eye(2 * b) * 1e9
    labels = paddle.concat([paddle.arange(b, 2 * b), paddle.arange(0, b)])
    return F.cross_entropy(sim, labels)


def test_crf_viterbi_with_tensor_while_loops_and_nt_xent_serve_any_size_as_paddle():
    rng = np.random.default_rng(3)
    trans = rng.standard_normal((4, 4)).astype("float32")
    conv = dy2st.to_static(viterbi_decode, input_spec=[InputSpec([None, None, 4]), InputSpec([4, 4]),
                                                       InputSpec([None], "int64")])
    for b, t in ((2, 5), (3, 3), (1, 1)):
        args = [rng.standard_normal((b, t, 4)).astype("float32"), trans, rng.integers(1, t + 1, (b,))]
        got = _grads_equal(viterbi_decode, conv, args, (0, 1))
        if b == 2:  # PaddlePaddle 3.3
            np.testing.assert_allclose(got[0], [5.826579, 3.0639], rtol=1e-5)
            assert got[1].tolist() == [[2, 1, 1, 1, 1], [2, 1, 1, 1, 1]]
    assert len(conv.program_cache) == 1
    conv = dy2st.to_static(nt_xent, input_spec=[InputSpec([None, 6]), InputSpec([None, 6])])
    for b in (4, 3):
        z = [rng.standard_normal((b, 6)).astype("float32") for _ in range(2)]
        got = _grads_equal(nt_xent, conv, z, (0, 1))
        if b == 4:
            np.testing.assert_allclose(got[0], 2.0386417, rtol=1e-5)


class BiLSTMCRF(nn.Layer):
    """A BiLSTM-CRF tagger's loss: the log partition by the forward algorithm in a tensor while loop
    (logsumexp over the transitions, padded steps masked) minus the gold path's score."""

    def __init__(self, vocab=20, d=8, tags=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, direction="bidirect")
        self.fc = nn.Linear(2 * d, tags)
        self.transitions = self.create_parameter([tags, tags])
        self.start = self.create_parameter([tags])

    def forward(self, ids, lengths, tags):
        h, _ = self.rnn(self.emb(ids), sequence_length=lengths)
        em = self.fc(h)
        b, t = paddle.shape(ids)[0], paddle.shape(ids)[1]
        mask = (paddle.arange(t).unsqueeze(0) < lengths.unsqueeze(1)).astype("float32")
        alpha = self.start.unsqueeze(0) + em[:, 0]
        gold = (paddle.take_along_axis(self.start.unsqueeze(0).expand([b, -1]), tags[:, :1], axis=1)
                + paddle.take_along_axis(em[:, 0], tags[:, :1], axis=1)).squeeze(1)
        i = 1
        while i < t:
            m = mask[:, i].unsqueeze(1)
            alpha = m * (paddle.logsumexp(alpha.unsqueeze(2) + self.transitions.unsqueeze(0), axis=1) + em[:, i]) \
                + (1 - m) * alpha
            step = paddle.gather_nd(self.transitions, paddle.stack([tags[:, i - 1], tags[:, i]], axis=1)) \
                + paddle.take_along_axis(em[:, i], tags[:, i:i + 1], axis=1).squeeze(1)
            gold = gold + mask[:, i] * step
            i += 1
        return (paddle.logsumexp(alpha, axis=1) - gold).mean()


def test_bilstm_crf_loss_with_a_tensor_while_loop_trains_like_eager_and_paddle():
    runs = []
    for convert in (False, True):
        net = _seeded(BiLSTMCRF(), np.random.default_rng(1), 0.3)
        f = dy2st.to_static(net, input_spec=[InputSpec([None, None], "int64"), InputSpec([None], "int64"),
                                             InputSpec([None, None], "int64")]) if convert else net
        opt = paddle.optimizer.Adam(0.05, parameters=net.parameters())
        rng, losses = np.random.default_rng(0), []
        for b, t in [(2, 5), (3, 4), (2, 6)]:
            ids, lens, tags = rng.integers(1, 20, (b, t)), rng.integers(1, t + 1, (b,)), rng.integers(0, 4, (b, t))
            lens[0] = t
            loss = f(paddle.to_tensor(ids), paddle.to_tensor(lens), paddle.to_tensor(tags))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append((losses, net.state_dict()))
    assert runs[1][0] == runs[0][0]
    for k, v in runs[0][1].items():
        np.testing.assert_array_equal(runs[1][1][k].numpy(), v.numpy(), err_msg=k)
    np.testing.assert_allclose(runs[0][0], [7.028482, 4.341226, 8.062846], rtol=2e-6)  # PaddlePaddle 3.3
