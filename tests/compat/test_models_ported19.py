"""More user code ported by changing imports: PaddleRec's xDeepFM (a compressed interaction network of
``Conv2D`` over outer products), a GRU seq2seq whose inference is a hand-written beam search (``topk``
over beams, a tensor early exit once every beam ended, ``gather_tree`` back-tracking), PaddleGAN's
StarGAN (domain labels tiled over a run-time image size, instance norm, a spectral-norm critic) and
PaddleNLP's UIE span extractor (start/end pointers, spans decoded with tensors at inference). Trained
under ``to_static`` they equal eager bitwise and serve any batch from one Program, saved and loaded."""
import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import seeded
from tests.compat.port_checks import same_training as _same_training


class xDeepFMLayer(nn.Layer):
    def __init__(self, sparse_feature_number=30, sparse_feature_dim=4, num_field=5, layer_sizes_cin=(3, 2),
                 layer_sizes_dnn=(8,)):
        super().__init__()
        self.sparse_feature_dim, self.num_field = sparse_feature_dim, num_field
        self.layer_sizes_cin = list(layer_sizes_cin)
        self.embedding = nn.Embedding(sparse_feature_number, sparse_feature_dim, sparse=True)
        self.embedding_one = nn.Embedding(sparse_feature_number, 1, sparse=True)
        self.cnn_layers = nn.LayerList()
        last_s = num_field
        for s in self.layer_sizes_cin:
            self.cnn_layers.append(nn.Conv2D(in_channels=last_s * num_field, out_channels=s, kernel_size=1))
            last_s = s
        self.cin_fc = nn.Linear(sum(self.layer_sizes_cin), 1)
        sizes = [num_field * sparse_feature_dim] + list(layer_sizes_dnn)
        self.dnn = nn.LayerList([nn.Linear(sizes[i], sizes[i + 1]) for i in range(len(layer_sizes_dnn))])
        self.dnn_out = nn.Linear(sizes[-1], 1)

    def cin(self, feat_embeddings):
        Xs = [feat_embeddings]
        last_s = self.num_field
        for s, cnn in zip(self.layer_sizes_cin, self.cnn_layers):
            X_0 = paddle.reshape(paddle.transpose(Xs[0], [0, 2, 1]), [-1, self.sparse_feature_dim, self.num_field, 1])
            X_k = paddle.reshape(paddle.transpose(Xs[-1], [0, 2, 1]), [-1, self.sparse_feature_dim, 1, last_s])
            Z_k_1 = paddle.matmul(X_0, X_k)
            Z_k_1 = paddle.reshape(Z_k_1, [-1, self.sparse_feature_dim, last_s * self.num_field])
            Z_k_1 = paddle.transpose(Z_k_1, [0, 2, 1])
            Z_k_1 = paddle.reshape(Z_k_1, [-1, last_s * self.num_field, 1, self.sparse_feature_dim])
            X_k_1 = paddle.reshape(cnn(Z_k_1), [-1, s, self.sparse_feature_dim])
            Xs.append(X_k_1)
            last_s = s
        result = paddle.sum(paddle.concat(Xs[1:], axis=1), axis=2)
        return self.cin_fc(result)

    def forward(self, sparse_inputs):
        feat_embeddings = self.embedding(sparse_inputs)  # [B, F, K]
        y_linear = paddle.sum(self.embedding_one(sparse_inputs), axis=1)
        y_cin = self.cin(feat_embeddings)
        y_dnn = paddle.reshape(feat_embeddings, [-1, self.num_field * self.sparse_feature_dim])
        for layer in self.dnn:
            y_dnn = F.relu(layer(y_dnn))
        y_dnn = self.dnn_out(y_dnn)
        return F.sigmoid(paddle.add_n([y_linear, y_cin, y_dnn]))


def test_xdeepfm_cin_trains_like_eager(tmp_path):
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, 30, (n, 5)),) for n in (4, 2, 5)]
    label = lambda b: paddle.to_tensor((b[0].sum(1, keepdims=True) % 2).astype("float32"))  # noqa: E731
    _same_training(xDeepFMLayer, [InputSpec([None, 5], "int64")], batches,
                   lambda o, b: F.binary_cross_entropy(o, label(b)), tmp_path)


class BeamSeq2Seq(nn.Layer):
    """A GRU encoder-decoder: teacher forcing while training; at inference a beam search over at most
    as many steps as the target is long, stopping once every beam ended, back-tracked by ``gather_tree``."""

    def __init__(self, vocab=7, d=8, beam_size=3, bos=1, eos=2):
        super().__init__()
        self.vocab, self.beam_size, self.bos, self.eos = vocab, beam_size, bos, eos
        self.src_emb, self.trg_emb = nn.Embedding(vocab, d), nn.Embedding(vocab, d)
        self.encoder = nn.GRU(d, d)
        self.cell = nn.GRUCell(d, d)
        self.out = nn.Linear(d, vocab)

    def forward(self, src, trg):
        _, h = self.encoder(self.src_emb(src))
        h = h[0]
        if self.training:
            logits = []
            for t in range(trg.shape[1] - 1):
                out, h = self.cell(self.trg_emb(trg[:, t]), h)
                logits.append(self.out(out))
            return F.cross_entropy(paddle.stack(logits, 1), trg[:, 1:].unsqueeze(-1))
        return self.beam_search(h, trg.shape[1])

    def beam_search(self, h, max_len):
        B, K, V = h.shape[0], self.beam_size, self.vocab
        h = paddle.reshape(paddle.tile(h.unsqueeze(1), [1, K, 1]), [-1, h.shape[-1]])
        log_probs = paddle.tile(paddle.to_tensor([[0.0] + [-1e9] * (K - 1)]), [B, 1])
        finished = paddle.zeros([B, K], "bool")
        # a finished beam may only repeat eos, at no cost
        noend = paddle.to_tensor([-1e9] * self.eos + [0.0] + [-1e9] * (V - self.eos - 1))
        token = paddle.full([B * K], self.bos, "int64")
        batch_pos = (paddle.arange(B, dtype="int64") * K).unsqueeze(1)
        ids, parents = [], []
        for _ in range(max_len):
            out, h = self.cell(self.trg_emb(token), h)
            step = F.log_softmax(self.out(out), -1).reshape([B, K, V])
            step = paddle.where(finished.unsqueeze(-1), noend.expand_as(step), step)
            scores = (log_probs.unsqueeze(-1) + step).reshape([B, K * V])
            log_probs, top = paddle.topk(scores, K)
            beam, word = top // V, top % V
            h = paddle.gather(h, (batch_pos + beam).flatten())
            finished = paddle.take_along_axis(finished.astype("int64"), beam, 1).astype("bool") | (word == self.eos)
            ids.append(word)
            parents.append(beam)
            token = word.flatten()
            if paddle.all(finished):
                break
        predicted = F.gather_tree(paddle.stack(ids), paddle.stack(parents))
        return paddle.transpose(predicted, [1, 2, 0]), log_probs


def _pairs(rng, b, n, m):
    src = rng.integers(3, 7, (b, n))
    trg = np.concatenate([np.ones((b, 1), "int64"), src[:, ::-1][:, :m - 2], np.full((b, 1), 2)], 1)
    return src.astype("int64"), trg.astype("int64")


def _backtrack(ids, parents):
    # gather_tree by hand: follow each final beam's parents back to the first step
    T, B, K = ids.shape
    out = np.zeros_like(ids)
    for b in range(B):
        for k in range(K):
            p = k
            for t in range(T - 1, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return out


def test_beam_search_seq2seq_trains_like_eager_and_decodes_with_gather_tree(tmp_path):
    rng = np.random.default_rng(1)
    specs = [InputSpec([None, None], "int64"), InputSpec([None, None], "int64")]
    batches = [_pairs(rng, 3, 4, 5), _pairs(rng, 2, 5, 6), _pairs(rng, 4, 3, 4)]
    _same_training(BeamSeq2Seq, specs, batches, lambda o, b: o, tmp_path)
    nets = [seeded(BeamSeq2Seq(), seed=2, scale=1.0).eval() for _ in range(2)]
    for n in nets:  # a model keen on eos, so that every beam ends early on some inputs
        n.out.bias.set_value(n.out.bias.numpy() + np.float32(8) * (np.arange(7) == 2))
    net, f = nets[0], dy2st.to_static(nets[1], input_spec=specs)
    steps = set()
    for b, n, m in ((2, 4, 9), (3, 3, 12), (1, 5, 2), (4, 2, 20)):
        x = [paddle.to_tensor(v) for v in _pairs(rng, b, n, max(m, 3))[:1]] + [paddle.zeros([b, m], "int64")]
        (want, want_lp), (got, got_lp) = net(*x), f(*x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(got_lp.numpy(), want_lp.numpy())
        steps.add((want.shape[2], m))
    assert any(t < m for t, m in steps) and any(t == m for t, m in steps)  # both ends of the loop are taken
    assert len(f.forward.program_cache) == 1


def test_gather_tree_follows_parents_back_like_paddle():
    rng = np.random.default_rng(3)
    for T, B, K in ((4, 2, 3), (1, 1, 2), (6, 3, 2)):
        ids, parents = rng.integers(0, 9, (T, B, K)), rng.integers(0, K, (T, B, K))
        f = dy2st.to_static(lambda i, p: F.gather_tree(i, p),
                            input_spec=[InputSpec([None, None, K], "int64")] * 2)
        want = _backtrack(ids, parents)
        np.testing.assert_array_equal(F.gather_tree(paddle.to_tensor(ids), paddle.to_tensor(parents)).numpy(), want)
        np.testing.assert_array_equal(f(paddle.to_tensor(ids), paddle.to_tensor(parents)).numpy(), want)


class ResidualBlock(nn.Layer):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2D(dim_in, dim_out, kernel_size=3, stride=1, padding=1, bias_attr=False),
            nn.InstanceNorm2D(dim_out, weight_attr=None, bias_attr=None), nn.ReLU(),
            nn.Conv2D(dim_out, dim_out, kernel_size=3, stride=1, padding=1, bias_attr=False),
            nn.InstanceNorm2D(dim_out, weight_attr=None, bias_attr=None))

    def forward(self, x):
        return x + self.main(x)


class GeneratorStarGAN(nn.Layer):
    def __init__(self, c_dim=3, conv_dim=4, repeat_num=1):
        super().__init__()
        layers = [nn.Conv2D(3 + c_dim, conv_dim, kernel_size=7, stride=1, padding=3, bias_attr=False),
                  nn.InstanceNorm2D(conv_dim, weight_attr=None, bias_attr=None), nn.ReLU()]
        curr_dim = conv_dim
        for _ in range(2):
            layers += [nn.Conv2D(curr_dim, curr_dim * 2, kernel_size=4, stride=2, padding=1, bias_attr=False),
                       nn.InstanceNorm2D(curr_dim * 2, weight_attr=None, bias_attr=None), nn.ReLU()]
            curr_dim = curr_dim * 2
        layers += [ResidualBlock(curr_dim, curr_dim) for _ in range(repeat_num)]
        for _ in range(2):
            layers += [nn.Conv2DTranspose(curr_dim, curr_dim // 2, kernel_size=4, stride=2, padding=1, bias_attr=False),
                       nn.InstanceNorm2D(curr_dim // 2, weight_attr=None, bias_attr=None), nn.ReLU()]
            curr_dim = curr_dim // 2
        layers += [nn.Conv2D(curr_dim, 3, kernel_size=7, stride=1, padding=3, bias_attr=False), nn.Tanh()]
        self.main = nn.Sequential(*layers)

    def forward(self, x, c):
        # the domain label, tiled over the run-time image size
        c = paddle.reshape(c, shape=[c.shape[0], c.shape[1], 1, 1])
        c = paddle.tile(c, repeat_times=[1, 1, x.shape[2], x.shape[3]])
        return self.main(paddle.concat([x, c], axis=1))


class DiscriminatorStarGAN(nn.Layer):
    def __init__(self, image_size=8, conv_dim=4, c_dim=3, repeat_num=2):
        super().__init__()
        sn = nn.utils.spectral_norm
        layers = [sn(nn.Conv2D(3, conv_dim, kernel_size=4, stride=2, padding=1)), nn.LeakyReLU(0.01)]
        curr_dim = conv_dim
        for _ in range(1, repeat_num):
            layers += [sn(nn.Conv2D(curr_dim, curr_dim * 2, kernel_size=4, stride=2, padding=1)), nn.LeakyReLU(0.01)]
            curr_dim = curr_dim * 2
        kernel_size = int(image_size / np.power(2, repeat_num))
        self.main = nn.Sequential(*layers)
        self.conv1 = nn.Conv2D(curr_dim, 1, kernel_size=3, stride=1, padding=1, bias_attr=False)
        self.conv2 = nn.Conv2D(curr_dim, c_dim, kernel_size=kernel_size, bias_attr=False)

    def forward(self, x):
        h = self.main(x)
        out_src, out_cls = self.conv1(h), self.conv2(h)
        return out_src, paddle.reshape(out_cls, [out_cls.shape[0], out_cls.shape[1]])


class StarGAN(nn.Layer):
    """The generator's objective of StarGAN: fool the critic, be classified as the target domain,
    and translate back to the input (cycle L1)."""

    def __init__(self):
        super().__init__()
        self.G, self.D = GeneratorStarGAN(), DiscriminatorStarGAN()

    def forward(self, x, c_org, c_trg):
        x_fake = self.G(x, c_trg)
        out_src, out_cls = self.D(x_fake)
        g_loss_fake = -paddle.mean(out_src)
        g_loss_cls = F.binary_cross_entropy_with_logits(out_cls, c_trg, reduction="sum") / out_cls.shape[0]
        g_loss_rec = paddle.mean(paddle.abs(x - self.G(x_fake, c_org)))
        return g_loss_fake + g_loss_cls + 10.0 * g_loss_rec, x_fake


def _faces(rng, n, size=8):
    labels = lambda: (rng.random((n, 3)) > 0.5).astype("float32")  # noqa: E731
    return np.tanh(rng.standard_normal((n, 3, size, size))).astype("float32"), labels(), labels()


def test_stargan_instance_norm_and_spectral_norm_train_like_eager(tmp_path):
    rng = np.random.default_rng(4)
    specs = [InputSpec([None, 3, 8, 8]), InputSpec([None, 3]), InputSpec([None, 3])]
    _same_training(StarGAN, specs, [_faces(rng, n) for n in (2, 1)], lambda o, b: o[0], tmp_path)


def test_stargan_generator_serves_any_image_size():
    net = seeded(GeneratorStarGAN(), seed=5)
    f = dy2st.to_static(seeded(GeneratorStarGAN(), seed=5), input_spec=[InputSpec([None, 3, None, None]),
                                                                         InputSpec([None, 3])])
    rng = np.random.default_rng(5)
    for n, size in ((2, 8), (1, 12), (3, 4)):
        x, c, _ = _faces(rng, n, size)
        xs, cs = [paddle.to_tensor(v, stop_gradient=False) for v in (x, c)], [paddle.to_tensor(v, stop_gradient=False) for v in (x, c)]
        want, got = net(*xs), f(*cs)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        (want * want).sum().backward()
        (got * got).sum().backward()
        np.testing.assert_array_equal(cs[0].grad.numpy(), xs[0].grad.numpy())
        np.testing.assert_array_equal(cs[1].grad.numpy(), xs[1].grad.numpy())
    assert len(f.forward.program_cache) == 1


class StarGANCritic(nn.Layer):
    """StarGAN's critic objective: WGAN with a gradient penalty, ``paddle.grad(create_graph=True)``
    at points between real and fake images (``alpha`` given, in place of ``paddle.rand``)."""

    def __init__(self):
        super().__init__()
        self.D = DiscriminatorStarGAN()

    def gradient_penalty(self, y, x):
        dydx = paddle.grad(outputs=y, inputs=x, grad_outputs=paddle.ones_like(y), create_graph=True,
                           retain_graph=True, only_inputs=True)[0]
        dydx = paddle.reshape(dydx, [dydx.shape[0], -1])
        dydx_l2norm = paddle.sqrt(paddle.sum(dydx ** 2, axis=1))
        return paddle.mean((dydx_l2norm - 1) ** 2)

    def forward(self, x_real, x_fake, alpha):
        d_loss_real = -paddle.mean(self.D(x_real)[0])
        d_loss_fake = paddle.mean(self.D(x_fake)[0])
        x_hat = alpha * x_real + (1 - alpha) * x_fake
        x_hat.stop_gradient = False
        out_src, _ = self.D(x_hat)
        return d_loss_real + d_loss_fake + 10.0 * self.gradient_penalty(out_src, x_hat)


def test_stargan_critic_gradient_penalty_trains_like_eager(tmp_path):
    rng = np.random.default_rng(6)
    batches = [(_faces(rng, n)[0], _faces(rng, n)[0], rng.random((n, 1, 1, 1)).astype("float32")) for n in (2, 3)]
    _same_training(StarGANCritic, [InputSpec([None, 3, 8, 8])] * 2 + [InputSpec([None, 1, 1, 1])], batches,
                   lambda o, b: o, tmp_path)


class UIE(nn.Layer):
    """PaddleNLP's UIE: an ERNIE encoder (word, position and token-type embeddings, padding mask) with
    start and end pointers; at inference the spans are paired as its ``get_span`` does (each end takes
    the last start since the previous end), by a loop over the run-time sequence length."""

    def __init__(self, vocab=20, d=8, pad_token_id=0, threshold=0.5):
        super().__init__()
        self.pad_token_id, self.threshold = pad_token_id, threshold
        self.word_embeddings = nn.Embedding(vocab, d, padding_idx=pad_token_id)
        self.position_embeddings = nn.Embedding(32, d)
        self.token_type_embeddings = nn.Embedding(2, d)
        self.layer_norm = nn.LayerNorm(d)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0), 1)
        self.linear_start, self.linear_end = nn.Linear(d, 1), nn.Linear(d, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, input_ids, token_type_ids):
        attention_mask = paddle.unsqueeze((input_ids == self.pad_token_id).astype("float32") * -1e4, axis=[1, 2])
        position_ids = paddle.cumsum(paddle.ones_like(input_ids), axis=-1) - 1
        emb = self.layer_norm(self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
                              + self.token_type_embeddings(token_type_ids))
        sequence_output = self.encoder(emb, attention_mask)
        start_prob = self.sigmoid(paddle.squeeze(self.linear_start(sequence_output), -1))
        end_prob = self.sigmoid(paddle.squeeze(self.linear_end(sequence_output), -1))
        if self.training:
            return start_prob, end_prob
        return start_prob, end_prob, self.get_span(start_prob, end_prob, token_type_ids == 1)

    def get_span(self, start_prob, end_prob, in_text):
        starts, ends = (start_prob > self.threshold) & in_text, (end_prob > self.threshold) & in_text
        cur = paddle.full([starts.shape[0]], -1, "int64")
        span_start = []  # per position: the start paired with the end there, or -1
        for t in range(starts.shape[1]):
            cur = paddle.where(starts[:, t], paddle.full_like(cur, t), cur)
            paired = ends[:, t] & (cur >= 0)
            span_start.append(paddle.where(paired, cur, paddle.full_like(cur, -1)))
            cur = paddle.where(ends[:, t], paddle.full_like(cur, -1), cur)
        return paddle.stack(span_start, axis=1)


def get_span(start_ids, end_ids):
    """PaddleNLP's two-pointer pairing of sorted start and end positions."""
    start_ids, end_ids = sorted(start_ids), sorted(end_ids)
    start_pointer, end_pointer, couple_dict = 0, 0, {}
    while start_pointer < len(start_ids) and end_pointer < len(end_ids):
        if start_ids[start_pointer] == end_ids[end_pointer]:
            couple_dict[end_ids[end_pointer]] = start_ids[start_pointer]
            start_pointer += 1
            end_pointer += 1
            continue
        if start_ids[start_pointer] < end_ids[end_pointer]:
            couple_dict[end_ids[end_pointer]] = start_ids[start_pointer]
            start_pointer += 1
            continue
        end_pointer += 1
    return {(couple_dict[end], end) for end in couple_dict}


def _prompts(rng, b, n):
    ids = rng.integers(1, 20, (b, n))
    ids[1:, n - 1 - rng.integers(0, 2):] = 0  # padded rows
    types = (np.arange(n) >= 2).astype("int64")[None].repeat(b, 0)  # a two-token prompt, then the text
    return ids.astype("int64"), types


def _sharpened(net, k=30.0):
    # pointers that tell positions apart (random weights give nearly equal probabilities everywhere):
    # steeper, and centred on a calibration batch
    x = [paddle.to_tensor(v) for v in _prompts(np.random.default_rng(0), 4, 8)]
    for lin in (net.linear_start, net.linear_end):
        lin.weight.set_value(lin.weight.numpy() * np.float32(k))
        lin.bias.set_value(np.zeros(1, "float32"))
    for lin, prob in zip((net.linear_start, net.linear_end), net(*x)[:2]):
        lin.bias.set_value(np.array([-np.median(np.log(prob.numpy() / (1 - prob.numpy())))], "float32"))
    return net


def test_uie_pointers_train_like_eager_and_pair_spans_like_get_span(tmp_path):
    rng = np.random.default_rng(7)
    specs = [InputSpec([None, None], "int64")] * 2
    labels = lambda b, k: paddle.to_tensor((b[0] % 4 == k).astype("float32"))  # noqa: E731
    loss = lambda o, b: F.binary_cross_entropy(o[0], labels(b, 1)) + F.binary_cross_entropy(o[1], labels(b, 2))  # noqa: E731
    _same_training(UIE, specs, [_prompts(rng, b, n) for b, n in ((2, 6), (3, 5))], loss, tmp_path)
    net = _sharpened(seeded(UIE(), seed=8, scale=1.0).eval())
    f = dy2st.to_static(_sharpened(seeded(UIE(), seed=8, scale=1.0).eval()), input_spec=specs)
    found = 0
    for b, n in ((2, 9), (3, 7), (1, 12)):
        x = [paddle.to_tensor(v) for v in _prompts(rng, b, n)]
        want, got = net(*x), f(*x)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        for sp, ep, tt, row in zip(want[0].numpy(), want[1].numpy(), x[1].numpy(), got[2].numpy()):
            text = tt == 1
            spans = get_span(np.nonzero((sp > 0.5) & text)[0].tolist(), np.nonzero((ep > 0.5) & text)[0].tolist())
            assert {(int(s), e) for e, s in enumerate(row) if s >= 0} == spans
            found += len(spans)
    assert found > 2
    assert len(f.forward.program_cache) == 1
