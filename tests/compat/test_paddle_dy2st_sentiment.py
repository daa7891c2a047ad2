"""Paddle's test_sentiment, rewritten and shrunk: the CNN, BOW, GRU and BiGRU text classifiers
(padding masked with `!=`, `expand`, a `[3, hidden]` convolution window max-pooled over the last axis,
the `DynamicGRU` of test_lac stepping over the sequence, an embedding with
`ParamAttr(learning_rate=30)`), each scored with softmax + `cross_entropy(use_softmax=False)` and
`rt.static.accuracy`, fed by `DataLoader.from_generator` and trained with Adagrad. Converted, each
trains bitwise as eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base, nn

from .test_paddle_dy2st_lac import DynamicGRU

VOCAB, BATCH, PAD, EMB, FC_HID, CLASSES = 40, 4, 8, 16, 12, 2


def _masked_embedding(model, inputs):
    emb = model.embedding(inputs)
    keep = (rt.reshape(inputs, [-1, 1]) != VOCAB).astype(dtype="float32")
    return emb * rt.expand(keep, [-1, EMB])


def _scored(prediction, label):
    cost = nn.functional.cross_entropy(input=prediction, label=label, reduction="none", use_softmax=False)
    return rt.mean(x=cost), prediction, rt.static.accuracy(input=prediction, label=label)


class ConvPool(nn.Layer):
    def __init__(self, channels, filters, size):
        super().__init__()
        self._conv2d = nn.Conv2D(in_channels=channels, out_channels=filters, kernel_size=size, padding=[1, 1])

    def forward(self, x):
        x = rt.max(rt.tanh(self._conv2d(x)), axis=-1)
        return rt.reshape(x, shape=[BATCH, -1])


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB + 1, EMB, sparse=False)
        self._pool = ConvPool(1, EMB, [3, EMB])
        self._fc1 = nn.Linear(EMB * PAD, FC_HID)
        self._fc1_act = nn.Softmax()
        self._fc_prediction = nn.Linear(FC_HID, CLASSES)

    def forward(self, inputs, label=None):
        emb = rt.reshape(_masked_embedding(self, inputs), shape=[-1, 1, PAD, EMB])
        hidden = self._fc1_act(self._fc1(self._pool(emb)))
        return _scored(self._fc1_act(self._fc_prediction(hidden)), label)


class BOW(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB + 1, EMB, sparse=False)
        self._fc1 = nn.Linear(EMB, EMB)
        self._fc2 = nn.Linear(EMB, FC_HID)
        self._fc_prediction = nn.Linear(FC_HID, CLASSES)

    def forward(self, inputs, label=None):
        emb = rt.reshape(_masked_embedding(self, inputs), shape=[-1, PAD, EMB])
        bow = rt.tanh(rt.sum(emb, axis=1))
        hidden = rt.tanh(self._fc2(rt.tanh(self._fc1(bow))))
        return _scored(nn.functional.softmax(self._fc_prediction(hidden)), label)


class GRU(nn.Layer):
    def __init__(self, both_ways=False):
        super().__init__()
        self.both_ways = both_ways
        self.embedding = nn.Embedding(VOCAB + 1, EMB, weight_attr=rt.ParamAttr(learning_rate=30), sparse=False)
        h_0 = base.dygraph.to_variable(np.zeros((BATCH, EMB), dtype="float32"))
        self._fc1 = nn.Linear(EMB, EMB * 3)
        self._fc2 = nn.Linear(EMB * (2 if both_ways else 1), FC_HID)
        self._fc_prediction = nn.Linear(FC_HID, CLASSES)
        self._gru_forward = DynamicGRU(EMB, h_0)
        if both_ways:
            self._gru_backward = DynamicGRU(EMB, h_0, is_reverse=True)

    def forward(self, inputs, label=None):
        emb = rt.reshape(_masked_embedding(self, inputs), shape=[BATCH, -1, EMB])
        steps = self._fc1(emb)
        if self.both_ways:
            encoded = rt.concat([rt.tanh(self._gru_forward(steps)), rt.tanh(self._gru_backward(steps))], axis=2)
            encoded = rt.max(encoded, axis=1)
        else:
            encoded = rt.tanh(rt.max(self._gru_forward(steps), axis=1))
        hidden = rt.tanh(self._fc2(encoded))
        return _scored(nn.functional.softmax(self._fc_prediction(hidden)), label)


def _reader():
    rng = np.random.RandomState(2020)

    def samples():
        batch = []
        while True:
            label = rng.randint(0, CLASSES)
            length = rng.randint(PAD // 2, int(PAD * 1.2))
            words = rng.randint(0, VOCAB, [length]).tolist()[:PAD] + [VOCAB] * (PAD - length)
            batch.append((words, [label], length))
            if len(batch) == BATCH:
                yield batch
                batch = []
    return samples


def _train(make, convert, steps=2):
    rt.seed(2020)
    loader = base.io.DataLoader.from_generator(capacity=8)
    loader.set_sample_list_generator(_reader())
    model = make()
    run = dy2st.to_static(model) if convert else model
    opt = rt.optimizer.Adagrad(learning_rate=0.01, parameters=model.parameters())
    seen = []
    for k, (words, labels, _) in enumerate(loader()):
        doc = rt.to_tensor(words.numpy().reshape(-1), dtype="int64")
        model.train()
        cost, prediction, acc = run(doc, labels.astype("int64"))
        cost.backward()
        opt.minimize(cost)
        model.clear_gradients()
        seen.append((float(cost), float(acc), prediction.numpy().tolist()))
        if k + 1 == steps:
            break
    return seen, [v.numpy() for v in model.state_dict().values()]


@pytest.mark.parametrize("make", [CNN, BOW, GRU, lambda: GRU(both_ways=True)], ids=["cnn", "bow", "gru", "bigru"])
def test_training_matches_eager(make):
    eager, eager_params = _train(make, False)
    seen, params = _train(make, True)
    assert seen == eager
    for a, b in zip(eager_params, params):
        np.testing.assert_array_equal(b, a)
