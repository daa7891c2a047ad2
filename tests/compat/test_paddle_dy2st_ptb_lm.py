"""Paddle's test_ptb_lm, rewritten and shrunk: a two-layer LSTM language model written with
`create_parameter`/`add_parameter` weights, `concat`/`matmul`/`split` gates unrolled over the steps,
`softmax_with_cross_entropy` and SGD. Trained converted, its losses and final states equal eager
bitwise and PaddlePaddle 3.3's (recorded below from the same weights); with dropout, converted
training equals eager under the same seed, and the saved model serves the same loss."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn

F = nn.functional
HIDDEN, VOCAB, LAYERS, STEPS, BATCH = 10, 20, 2, 3, 4
# PaddlePaddle 3.3, three SGD(0.5) steps from the weights of `_weights()`
PADDLE_LOSSES = [9.026015281677246, 8.874590873718262, 8.74483871459961]
PADDLE_HIDDEN = [0.006958416197448969, 0.012278708629310131, 0.02928595244884491, -0.0008499095565639436]
PADDLE_CELL = [0.013974899426102638, 0.024710210040211678, 0.061035290360450745, -0.0016447289381176233]


def _uniform(scale):
    return rt.ParamAttr(initializer=nn.initializer.Uniform(low=-scale, high=scale))


class UnrolledLSTM(nn.Layer):
    def __init__(self, hidden, steps, layers, scale, dropout):
        super().__init__()
        self.hidden, self.steps, self.layers, self.dropout = hidden, steps, layers, dropout
        self.weights, self.biases = [], []
        for k in range(layers):
            w = self.create_parameter(attr=_uniform(scale), shape=[hidden * 2, hidden * 4], dtype="float32")
            self.weights.append(self.add_parameter(f"w_{k}", w))
            b = self.create_parameter(attr=_uniform(scale), shape=[hidden * 4], dtype="float32")
            self.biases.append(self.add_parameter(f"b_{k}", b))

    def forward(self, emb, init_hidden, init_cell):
        hiddens = [init_hidden[k] for k in range(self.layers)]
        cells = [init_cell[k] for k in range(self.layers)]
        outputs = []
        for t in range(self.steps):
            step = emb[:, t, :]
            for k in range(self.layers):
                gates = rt.add(rt.matmul(x=rt.concat([step, hiddens[k]], 1), y=self.weights[k]), self.biases[k])
                i, j, f, o = rt.split(gates, num_or_sections=4, axis=-1)
                c = cells[k] * F.sigmoid(f) + F.sigmoid(i) * rt.tanh(j)
                m = rt.tanh(c) * F.sigmoid(o)
                hiddens[k], cells[k], step = m, c, m
                if self.dropout is not None and self.dropout > 0.0:
                    step = F.dropout(step, p=self.dropout, mode="upscale_in_train")
            outputs.append(step)
        out = rt.reshape(rt.concat(outputs, 1), [-1, self.steps, self.hidden])

        def stacked(states):
            return rt.transpose(rt.reshape(rt.concat(states, 1), shape=[-1, self.layers, self.hidden]), perm=[1, 0, 2])

        return out, stacked(hiddens), stacked(cells)


class PtbLM(nn.Layer):
    def __init__(self, dropout=0.0, scale=0.1):
        super().__init__()
        self.dropout = dropout
        self.simple_lstm_rnn = UnrolledLSTM(HIDDEN, STEPS, LAYERS, scale, dropout)
        self.embedding = nn.Embedding(VOCAB, HIDDEN, sparse=False,
                                      weight_attr=rt.ParamAttr(name="embedding_para",
                                                               initializer=nn.initializer.Uniform(-scale, scale)))
        self.softmax_weight = self.create_parameter(attr=rt.ParamAttr(), shape=[HIDDEN, VOCAB], dtype="float32",
                                                    default_initializer=nn.initializer.Uniform(-scale, scale))
        self.softmax_bias = self.create_parameter(attr=rt.ParamAttr(), shape=[VOCAB], dtype="float32",
                                                  default_initializer=nn.initializer.Uniform(-scale, scale))

    def forward(self, words, label, init_hidden, init_cell):
        h0 = rt.reshape(init_hidden, shape=[LAYERS, -1, HIDDEN])
        c0 = rt.reshape(init_cell, shape=[LAYERS, -1, HIDDEN])
        emb = rt.reshape(self.embedding(words), shape=[-1, STEPS, HIDDEN])
        if self.dropout is not None and self.dropout > 0.0:
            emb = F.dropout(emb, p=self.dropout, mode="upscale_in_train")
        out, last_hidden, last_cell = self.simple_lstm_rnn(emb, h0, c0)
        logits = rt.add(rt.matmul(out, self.softmax_weight), self.softmax_bias)
        loss = F.softmax_with_cross_entropy(logits=logits, label=label, soft_label=False)
        loss = rt.sum(rt.mean(rt.reshape(loss, shape=[-1, STEPS]), axis=[0]))
        return loss, last_hidden, last_cell


def _weights(model):
    """The recorded run's weights: uniform(-0.1, 0.1) from numpy's generator 0, in state_dict order."""
    rng = np.random.default_rng(0)
    model.set_state_dict({k: rng.uniform(-0.1, 0.1, v.shape).astype("float32")
                          for k, v in model.state_dict().items()})
    return model


def _batch():
    words = rt.to_tensor((np.arange(12) % VOCAB).reshape(BATCH, STEPS, 1).astype("int64"))
    label = rt.to_tensor((np.arange(1, 13) % VOCAB).reshape(BATCH, STEPS, 1).astype("int64"))
    zeros = np.zeros((LAYERS, BATCH, HIDDEN), "float32")
    return words, label, rt.to_tensor(zeros), rt.to_tensor(zeros)


def _train(convert, dropout=0.0, steps=3):
    model = _weights(PtbLM(dropout))
    run = dy2st.to_static(model) if convert else model
    sgd = rt.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
    rt.seed(2020)
    losses = []
    for _ in range(steps):
        loss, hidden, cell = run(*_batch())
        loss.backward()
        sgd.minimize(loss)
        model.clear_gradients()
        losses.append(float(loss))
    return run, losses, hidden.numpy(), cell.numpy()


def test_state_dict_names_are_paddles():
    assert list(PtbLM().state_dict()) == ["softmax_weight", "softmax_bias", "simple_lstm_rnn.w_0",
                                          "simple_lstm_rnn.b_0", "simple_lstm_rnn.w_1", "simple_lstm_rnn.b_1",
                                          "embedding.weight"]


def test_training_matches_eager_and_paddle():
    _, eager_losses, eager_hidden, eager_cell = _train(False)
    _, losses, hidden, cell = _train(True)
    assert losses == eager_losses
    np.testing.assert_array_equal(hidden, eager_hidden)
    np.testing.assert_array_equal(cell, eager_cell)
    np.testing.assert_allclose(losses, PADDLE_LOSSES, rtol=1e-6)
    np.testing.assert_allclose(hidden.ravel()[:4], PADDLE_HIDDEN, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(cell.ravel()[:4], PADDLE_CELL, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("dropout", [0.3])
def test_training_with_dropout_then_saving(dropout, tmp_path):
    _, eager_losses, eager_hidden, _ = _train(False, dropout, steps=2)
    static, losses, hidden, _ = _train(True, dropout, steps=2)
    assert losses == eager_losses
    np.testing.assert_array_equal(hidden, eager_hidden)
    # F.dropout's training flag defaults to True: it drops in eval mode too, so draw from one seed
    static.eval()
    rt.seed(7)
    want = static(*_batch())
    path = os.path.join(tmp_path, "ptb")
    dy2st.save(static, path)
    loaded = dy2st.load(path)
    rt.seed(7)
    got = loaded(*_batch())
    for a, b in zip(want, got):
        np.testing.assert_array_equal(b.numpy(), a.numpy())
