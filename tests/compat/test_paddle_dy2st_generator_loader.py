"""``DataLoader.from_generator`` (``paddle.base.io`` and Paddle 2.x ``paddle.io``) as the sentiment
models of Paddle's dygraph-to-static suite feed it: batches from a sample, sample-list or batch
generator as lists of Tensors (each field batched as ``np.array`` of its values, Paddle's shapes and
dtypes), training a converted model exactly as eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
from runtime import base


def _sample_lists():
    rng = np.random.RandomState(3)
    while True:
        yield [(rng.randint(0, 20, [6]).tolist(), [int(rng.randint(0, 2))], int(rng.randint(3, 7))) for _ in range(4)]


class _Bag(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(21, 8)
        self.fc = paddle.nn.Linear(8, 2)

    def forward(self, ids, label):
        mask = (ids != 20).astype("float32").unsqueeze(-1)
        pooled = paddle.tanh((self.emb(ids) * mask).sum(axis=1))
        prob = paddle.nn.functional.softmax(self.fc(pooled))
        loss = paddle.nn.functional.cross_entropy(prob, label, reduction="none", use_softmax=False)
        return paddle.mean(loss), paddle.static.accuracy(input=prob, label=label)


def test_sample_list_generator_shapes_and_training_converted_as_eager():
    loader = base.io.DataLoader.from_generator(capacity=8)
    loader.set_sample_list_generator(_sample_lists)
    ids, label, lens = next(iter(loader()))
    assert (ids.shape, label.shape, lens.shape) == ([4, 6], [4, 1], [4])
    assert ids.dtype == label.dtype == lens.dtype == "int64"

    losses = []
    for to_static in (True, False):
        dy2st.enable_to_static(to_static)
        try:
            paddle.seed(5)
            net = dy2st.to_static(_Bag())
            opt = paddle.optimizer.Adagrad(learning_rate=0.1, parameters=net.parameters())
            run = []
            for step, (ids, label, _) in enumerate(loader()):
                loss, acc = net(ids, label)
                loss.backward()
                opt.minimize(loss)
                net.clear_gradients()
                run.append(float(loss))
                if step == 3:
                    break
            losses.append(run)
        finally:
            dy2st.enable_to_static(True)
    assert losses[0] == losses[1]


def test_sample_and_batch_generators():
    def samples():
        for k in range(5):
            yield np.full(3, k, "float32"), np.array([k])

    loader = paddle.io.DataLoader.from_generator(capacity=4)
    loader.set_sample_generator(samples, batch_size=2, drop_last=False)
    got = [(x.shape, y.shape, float(x.sum())) for x, y in loader]
    assert got == [([2, 3], [2, 1], 3.0), ([2, 3], [2, 1], 15.0), ([1, 3], [1, 1], 12.0)]
    loader.set_sample_generator(samples, batch_size=2)  # drop_last=True by default
    assert len(list(loader())) == 2

    def batches():
        yield np.ones((2, 3), "float32"), paddle.ones([2, 1], dtype="int64")

    loader.set_batch_generator(batches)
    (x, y), = list(loader())
    assert x.dtype == "float32" and y.dtype == "int64" and y.shape == [2, 1]
    with pytest.raises(RuntimeError, match="set a generator first"):
        iter(paddle.io.DataLoader.from_generator())
