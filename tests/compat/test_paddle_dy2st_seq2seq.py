"""Paddle's test_seq2seq (the base model of seq2seq_dygraph_model.py), rewritten and shrunk: an LSTM
encoder whose states start in `rt.tensor.create_array`/`array_write` arrays and are masked per step
with `_multiply_with_axis` and `sequence_mask`, a teacher-forced decoder trained with a masked
cross entropy, and beam search over `range(rt.to_tensor(max_steps))` that breaks when every beam
has finished, keeps the states in lists rebuilt by comprehensions, picks beams with `topk`,
`floor_divide`/`remainder` and `gather_nd`, and backtracks with `gather_tree`. Training and
decoding converted equal eager (losses, parameters and ids, bitwise)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn

HIDDEN, SRC_VOCAB, TAR_VOCAB, BATCH, SRC_LEN, TAR_LEN, BEAM, LAYERS = 8, 12, 10, 3, 5, 4, 2, 1
START, END, KINF = 1, 2, 1e9
mul_axis, add_axis = rt.tensor.math._multiply_with_axis, rt.tensor.math._add_with_axis


def _uniform(scale=0.1):
    return rt.ParamAttr(initializer=nn.initializer.Uniform(low=-scale, high=scale))


class BasicLSTMUnit(nn.Layer):
    def __init__(self, hidden, inputs, forget_bias=1.0):
        super().__init__()
        self._forget_bias = forget_bias
        self._weight = self.create_parameter(attr=_uniform(), shape=[inputs + hidden, 4 * hidden], dtype="float32")
        self._bias = self.create_parameter(attr=rt.ParamAttr(initializer=nn.initializer.Constant(0.0)),
                                           shape=[4 * hidden], dtype="float32", is_bias=True)

    def forward(self, x, pre_hidden, pre_cell):
        gates = rt.add(rt.matmul(x=rt.concat([x, pre_hidden], 1), y=self._weight), self._bias)
        i, j, f, o = rt.split(gates, num_or_sections=4, axis=-1)
        cell = rt.add(rt.multiply(pre_cell, nn.functional.sigmoid(f + self._forget_bias)),
                      rt.multiply(nn.functional.sigmoid(i), rt.tanh(j)))
        return rt.tanh(cell) * nn.functional.sigmoid(o), cell


class Seq2Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.batch_size = BATCH
        self.src_embeder = nn.Embedding(SRC_VOCAB, HIDDEN, weight_attr=_uniform())
        self.tar_embeder = nn.Embedding(TAR_VOCAB, HIDDEN, sparse=False, weight_attr=_uniform())
        self.enc_units = [self.add_sublayer(f"enc_units_{k}", BasicLSTMUnit(HIDDEN, HIDDEN)) for k in range(LAYERS)]
        self.dec_units = [self.add_sublayer(f"dec_units_{k}", BasicLSTMUnit(HIDDEN, HIDDEN)) for k in range(LAYERS)]
        self.fc = nn.Linear(HIDDEN, TAR_VOCAB, weight_attr=_uniform(), bias_attr=False)

    def _transpose_batch_time(self, x):
        return rt.transpose(x, [1, 0, *range(2, len(x.shape))])

    def _merge_batch_beams(self, x):
        return rt.reshape(x, shape=(-1, x.shape[2]))

    def _split_batch_beams(self, x):
        return rt.reshape(x, shape=(-1, BEAM, x.shape[1]))

    def _expand_to_beam_size(self, x):
        x = rt.unsqueeze(x, [1])
        shape = [-1] * len(x.shape)
        shape[1] = BEAM * x.shape[1]
        return rt.expand(x, shape)

    def _real_state(self, state, new_state, step_mask):
        return mul_axis(new_state, step_mask, axis=0) - mul_axis(state, (step_mask - 1), axis=0)

    def _gather(self, x, indices, batch_pos):
        return rt.gather_nd(x, rt.stack([batch_pos, indices], axis=2))

    def _encode(self, src, src_len):
        src_emb = self.src_embeder(self._transpose_batch_time(src))
        zeros = rt.zeros(shape=[self.batch_size, HIDDEN], dtype="float32")
        first = rt.zeros(shape=[1], dtype="int64")
        hidden, cell = rt.tensor.create_array(dtype="float32"), rt.tensor.create_array(dtype="float32")
        for k in range(LAYERS):
            hidden = rt.tensor.array_write(zeros, first + k, array=hidden)
            cell = rt.tensor.array_write(zeros, first + k, array=cell)
        mask = rt.transpose(nn.functional.sequence_mask(src_len, maxlen=src_emb.shape[0], dtype="float32"), [1, 0])
        for t in range(SRC_LEN):
            step, step_mask = src_emb[t], mask[t]
            new_hidden, new_cell = [], []
            for k in range(LAYERS):
                h, c = self.enc_units[k](step, hidden[k], cell[k])
                step = h
                new_hidden.append(self._real_state(hidden[k], h, step_mask))
                new_cell.append(self._real_state(cell[k], c, step_mask))
            hidden, cell = new_hidden, new_cell
        return hidden, cell

    def forward(self, src, tar, label, src_len, tar_len):
        hidden, cell = self._encode(src, src_len)
        tar_emb = self.tar_embeder(self._transpose_batch_time(tar))
        outputs = []
        for t in range(tar_emb.shape[0]):
            step = tar_emb[t]
            new_hidden, new_cell = [], []
            for k in range(LAYERS):
                h, c = self.dec_units[k](step, hidden[k], cell[k])
                new_hidden.append(h)
                new_cell.append(c)
                step = h
            hidden, cell = new_hidden, new_cell
            outputs.append(step)
        logits = self.fc(self._transpose_batch_time(rt.stack(outputs)))
        loss = rt.squeeze(nn.functional.cross_entropy(input=logits, label=label, soft_label=False,
                                                      reduction="none"), axis=[2])
        loss = loss * nn.functional.sequence_mask(tar_len, maxlen=rt.shape(tar)[1], dtype="float32")
        return rt.sum(rt.mean(loss, axis=[0]))

    def beam_search(self, src, src_len, max_steps):
        hidden, cell = self._encode(src, src_len)
        shape = (self.batch_size, BEAM)
        vocab = rt.full([1], TAR_VOCAB, dtype="int64")
        end_tokens = rt.full(shape, END, dtype="int64")
        step = self.tar_embeder(rt.full(shape, START, dtype="int64"))
        finished = rt.full(shape, 0, dtype="float32")
        log_probs = rt.to_tensor([[0.0] + [-KINF] * (BEAM - 1)], dtype="float32")
        log_probs = rt.expand(log_probs, [self.batch_size * log_probs.shape[0], -1])
        hidden = [self._expand_to_beam_size(h) for h in hidden]
        cell = [self._expand_to_beam_size(c) for c in cell]
        batch_pos = rt.expand(rt.unsqueeze(rt.arange(0, self.batch_size, 1, dtype="int64"), [1]), [-1, BEAM])
        predicted, parents = [], []
        for _ in range(rt.to_tensor(max_steps)):
            if rt.sum(1 - finished) == 0:
                break
            step = self._merge_batch_beams(step)
            hidden = [self._merge_batch_beams(h) for h in hidden]
            cell = [self._merge_batch_beams(c) for c in cell]
            new_hidden, new_cell = [], []
            for k in range(LAYERS):
                h, c = self.dec_units[k](step, hidden[k], cell[k])
                new_hidden.append(h)
                new_cell.append(c)
                step = h
            step_log_probs = rt.log(nn.functional.softmax(self.fc(self._split_batch_beams(step))))
            noend = [-KINF] * TAR_VOCAB
            noend[END] = 0
            step_log_probs = rt.multiply(rt.expand(rt.unsqueeze(finished, [2]), [-1, -1, TAR_VOCAB]),
                                         rt.to_tensor(noend, dtype="float32")) \
                - mul_axis(step_log_probs, (finished - 1), axis=0)
            scores = rt.reshape(add_axis(x=step_log_probs, y=log_probs, axis=0), [-1, BEAM * TAR_VOCAB])
            top_scores, top_indices = rt.topk(x=scores, k=BEAM)
            beams = rt.floor_divide(top_indices, vocab)
            tokens = rt.remainder(top_indices, vocab)
            log_probs = self._gather(scores, top_indices, batch_pos)
            hidden = [self._gather(self._split_batch_beams(h), beams, batch_pos) for h in new_hidden]
            cell = [self._gather(self._split_batch_beams(c), beams, batch_pos) for c in new_cell]
            done = rt.cast(self._gather(finished, beams, batch_pos), "bool")
            finished = rt.cast(rt.logical_or(done, rt.equal(tokens, end_tokens)), "float32")
            step = self.tar_embeder(tokens)
            predicted.append(tokens)
            parents.append(beams)
        ids = nn.functional.gather_tree(rt.stack(predicted), rt.stack(parents))
        return self._transpose_batch_time(ids)


def _batches():
    rng = np.random.RandomState(0)
    out = []
    for _ in range(2):
        src = rng.randint(3, SRC_VOCAB, (BATCH, SRC_LEN)).astype("int64")
        tar = rng.randint(3, TAR_VOCAB, (BATCH, TAR_LEN)).astype("int64")
        label = rng.randint(0, TAR_VOCAB, (BATCH, TAR_LEN, 1)).astype("int64")
        src_len = rng.randint(2, SRC_LEN + 1, (BATCH,)).astype("int64")
        tar_len = rng.randint(2, TAR_LEN + 1, (BATCH,)).astype("int64")
        out.append([rt.to_tensor(a) for a in (src, tar, label, src_len, tar_len)])
    return out


def _train_and_decode(convert, max_steps):
    rt.seed(2020)
    model = Seq2Seq()
    train = dy2st.to_static(model) if convert else model
    opt = rt.optimizer.Adam(0.05, parameters=model.parameters(), grad_clip=nn.ClipGradByGlobalNorm(5.0))
    losses = []
    for batch in _batches():
        loss = train(*batch)
        loss.backward()
        opt.minimize(loss)
        model.clear_gradients()
        losses.append(float(loss))
    decode = dy2st.to_static(model.beam_search) if convert else model.beam_search
    model.eval()
    ids = [decode(b[0], b[3], max_steps).numpy().tolist() for b in _batches()]
    return losses, [v.numpy() for v in model.state_dict().values()], ids


@pytest.mark.parametrize("max_steps", [3])
def test_training_and_beam_search_match_eager(max_steps):
    eager = _train_and_decode(False, max_steps)
    static = _train_and_decode(True, max_steps)
    assert static[0] == eager[0]
    for a, b in zip(eager[1], static[1]):
        np.testing.assert_array_equal(b, a)
    assert static[2] == eager[2]
    ids = np.array(static[2][0])
    assert ids.shape[0] == BATCH and 1 <= ids.shape[1] <= max_steps and ids.shape[2] == BEAM
