"""Paddle's test_lac (lexical analysis), rewritten and shrunk: stacked bidirectional GRUs whose
`DynamicGRU` steps over a sequence length known only at run time (`InputSpec([None, None])`),
slicing with `rt.slice` at `rt.shape(x)[1] - 1 - i` when reversed and reversing the collected
steps with `res[::-1]`; the CRF cost is the forward algorithm written with `logsumexp` in a loop over
that length (Paddle's legacy `linear_chain_crf` op is not public API), the decoding
`rt.text.ViterbiDecoder` on the shared transitions. One Program trains on every length, bitwise as
eager and as PaddlePaddle 3.3 (costs and paths recorded below from the same weights), and serves the
same paths after saving."""
import os

import numpy as np

import dy2st
import runtime as rt
from runtime import base, nn

LABELS = 5
SPECS = [rt.static.InputSpec([None, None], "int64"), rt.static.InputSpec([None, None], "int64"),
         rt.static.InputSpec([None], "int64")]
# PaddlePaddle 3.3: the costs and decoded paths of three SGD(0.1) steps from `_weights()`
PADDLE = [(5.953405380249023, [[1, 4, 4, 4, 4], [4, 0, 0, 0, 0], [1, 4, 4, 0, 0], [1, 4, 3, 1, 4]]),
          (6.630627155303955, [[1, 0, 4, 3, 1, 0, 0], [1, 4, 3, 1, 0, 0, 0], [3, 1, 0, 0, 0, 0, 0], [0] * 7]),
          (4.845701217651367, [[4, 4, 4], [4, 4, 4], [4, 4, 4], [4, 4, 0]])]


class DynamicGRU(nn.Layer):
    def __init__(self, size, h_0, is_reverse=False):
        super().__init__()
        self.gru_unit = nn.GRUCell(size * 3, size)
        self.h_0, self.is_reverse = h_0, is_reverse

    def forward(self, inputs):
        hidden = base.dygraph.to_variable(self.h_0)  # a copy: h_0 is shared by every DynamicGRU
        hidden.stop_gradient = True
        steps = []
        for i in range(inputs.shape[1]):
            j = rt.shape(inputs)[1] - 1 - i if self.is_reverse else i
            step = rt.slice(inputs, axes=[1], starts=[j], ends=[j + 1])
            step = rt.reshape(step, [-1, step.shape[2]])
            hidden, _ = self.gru_unit(step, hidden)
            steps.append(rt.reshape(hidden, [-1, 1, hidden.shape[1]]))
        if self.is_reverse:
            steps = steps[::-1]
        return rt.concat(steps, axis=1)


class BiGRU(nn.Layer):
    def __init__(self, input_dim, hidden, h_0):
        super().__init__()
        self.pre_gru = nn.Linear(input_dim, hidden * 3)
        self.gru = DynamicGRU(hidden, h_0)
        self.pre_gru_r = nn.Linear(input_dim, hidden * 3)
        self.gru_r = DynamicGRU(hidden, h_0, is_reverse=True)

    def forward(self, x):
        return rt.concat([self.gru(self.pre_gru(x)), self.gru_r(self.pre_gru_r(x))], axis=-1)


class LexNet(nn.Layer):
    def __init__(self, batch=4, vocab=30, emb=8, hidden=8, layers=2):
        super().__init__()
        self.word_embedding = nn.Embedding(vocab, emb)
        h_0 = base.dygraph.to_variable(np.zeros((batch, hidden), "float32"))
        self.units = [self.add_sublayer(f"bigru_units{k}", BiGRU(emb if k == 0 else hidden * 2, hidden, h_0))
                      for k in range(layers)]
        self.fc = nn.Linear(hidden * 2, LABELS)
        self.transition = self.create_parameter(shape=[LABELS, LABELS], dtype="float32")

    def crf_cost(self, emission, target, length):
        steps = rt.shape(target)[1]
        alpha = emission[:, 0, :]
        for t in range(1, steps):
            nxt = rt.logsumexp(alpha.unsqueeze(2) + self.transition.unsqueeze(0), axis=1) + emission[:, t, :]
            alpha = rt.where((t < length).unsqueeze(1), nxt, alpha)
        mask = (rt.arange(steps).unsqueeze(0) < length.unsqueeze(1)).astype("float32")
        hot = nn.functional.one_hot(target, LABELS)
        unary = ((emission * hot).sum(-1) * mask).sum(-1)
        pairs = (rt.matmul(hot[:, :-1, :], self.transition) * hot[:, 1:, :]).sum(-1)
        return rt.mean(rt.logsumexp(alpha, axis=1) - unary - (pairs * mask[:, 1:]).sum(-1))

    def forward(self, word, target, length):
        feature = self.word_embedding(word)
        for unit in self.units:
            feature = unit(feature)
        emission = self.fc(feature)
        _, path = rt.text.ViterbiDecoder(self.transition, include_bos_eos_tag=False)(emission, length)
        return self.crf_cost(emission, target, length), path


def _weights(model):
    rng = np.random.default_rng(0)
    model.set_state_dict({k: rng.uniform(-0.3, 0.3, v.shape).astype("float32")
                          for k, v in model.state_dict().items()})
    return model


def _batches():
    rng = np.random.RandomState(0)
    out = []
    for steps in (5, 7, 3):
        words = rng.randint(0, 30, (4, steps)).astype("int64")
        tags = rng.randint(0, LABELS, (4, steps)).astype("int64")
        lengths = rng.randint(1, steps + 1, (4,)).astype("int64")
        lengths[0] = steps
        out.append([rt.to_tensor(a) for a in (words, tags, lengths)])
    return out


def _train(convert):
    model = _weights(LexNet())
    run = dy2st.to_static(model, input_spec=SPECS) if convert else model
    opt = rt.optimizer.SGD(0.1, parameters=model.parameters())
    seen = []
    for batch in _batches():
        cost, path = run(*batch)
        cost.backward()
        opt.step()
        opt.clear_grad()
        seen.append((float(cost), path.numpy().tolist()))
    return run, seen, model


def test_training_over_lengths_known_at_run_time(tmp_path):
    _, eager, eager_model = _train(False)
    static, seen, model = _train(True)
    assert seen == eager
    assert len(static.forward.program_cache) == 1
    for (cost, path), (want_cost, want_path) in zip(seen, PADDLE):
        np.testing.assert_allclose(cost, want_cost, rtol=1e-6)
        assert path == want_path
    for k, v in eager_model.state_dict().items():
        np.testing.assert_array_equal(model.state_dict()[k].numpy(), v.numpy(), err_msg=k)

    path = os.path.join(tmp_path, "lac")
    dy2st.save(static, path)
    loaded = dy2st.load(path)
    loaded.eval()
    for batch in _batches():
        want = static(*batch)
        got = loaded(*batch)
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
