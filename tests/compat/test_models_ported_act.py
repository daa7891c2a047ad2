"""The Universal Transformer's adaptive computation time (ACT) ported by changing imports: a ``while``
over a tensor condition (``((halting_probability < threshold) & (n_updates < max_hops)).any()``) that
applies the shared transition until every position has halted, accumulating the state by its halting
weights, and a ponder cost from the remainders and update counts. The number of iterations depends on
the data; trained under ``to_static`` it equals eager bitwise and serves any batch and length from
one Program, saved and loaded."""
import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import same_training as _same_training
from tests.compat.port_checks import seeded


class ACTBasic(nn.Layer):
    def __init__(self, hidden_size):
        super().__init__()
        self.sigma = nn.Sigmoid()
        self.p = nn.Linear(hidden_size, 1)
        self.p.bias.set_value(paddle.ones([1]))
        self.threshold = 1 - 0.1

    def forward(self, state, inputs, fn, time_enc, pos_enc, max_hop):
        # init_hdd
        halting_probability = paddle.zeros([inputs.shape[0], inputs.shape[1]])
        remainders = paddle.zeros([inputs.shape[0], inputs.shape[1]])
        n_updates = paddle.zeros([inputs.shape[0], inputs.shape[1]])
        previous_state = paddle.zeros_like(inputs)
        step = 0
        while ((halting_probability < self.threshold) & (n_updates < max_hop)).any():
            state = state + time_enc[:, :inputs.shape[1], :]
            state = state + pos_enc[:, step, :].unsqueeze(1)
            p = self.sigma(self.p(state)).squeeze(-1)
            still_running = (halting_probability < 1.0).astype("float32")
            new_halted = (halting_probability + p * still_running > self.threshold).astype("float32") * still_running
            still_running = (halting_probability + p * still_running <= self.threshold).astype("float32") * still_running
            halting_probability = halting_probability + p * still_running
            remainders = remainders + new_halted * (1 - halting_probability)
            halting_probability = halting_probability + new_halted * remainders
            n_updates = n_updates + still_running + new_halted
            update_weights = p * still_running + new_halted * remainders
            state = fn(state)
            previous_state = (state * update_weights.unsqueeze(-1)) + (previous_state * (1 - update_weights.unsqueeze(-1)))
            step += 1
        return previous_state, (remainders, n_updates)


class UniversalEncoder(nn.Layer):
    def __init__(self, vocab=20, d=8, max_hop=5, classes=3):
        super().__init__()
        self.max_hop = max_hop
        self.embedding = nn.Embedding(vocab, d)
        self.enc = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.ReLU(), nn.Linear(2 * d, d))
        self.act_fn = ACTBasic(d)
        pos = np.arange(16)[:, None] / np.power(10000.0, np.arange(d)[None] / d)
        signal = np.concatenate([np.sin(pos[:, 0::2]), np.cos(pos[:, 1::2])], 1)[None].astype("float32")
        self.register_buffer("timing_signal", paddle.to_tensor(signal))
        self.register_buffer("position_signal", paddle.to_tensor(signal[:, :max_hop]))
        self.out = nn.Linear(d, classes)

    def forward(self, input_ids):
        x = self.embedding(input_ids)
        x, (remainders, n_updates) = self.act_fn(x, x, self.enc, self.timing_signal, self.position_signal,
                                                 self.max_hop)
        ponder = (remainders + n_updates).mean()
        return self.out(x.mean(1)), ponder, n_updates.max()


def test_adaptive_computation_time_loop_trains_like_eager_for_any_batch_and_length(tmp_path):
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, 20, (b, n)),) for b, n in ((2, 5), (3, 4), (2, 7))]
    label = lambda b: paddle.to_tensor(b[0][:, 0] % 3)  # noqa: E731
    _same_training(UniversalEncoder, [InputSpec([None, None], "int64")], batches,
                   lambda o, b: F.cross_entropy(o[0], label(b)) + 0.01 * o[1], tmp_path)


def test_the_act_loop_runs_as_many_hops_as_the_data_needs():
    eager = seeded(UniversalEncoder(), seed=1, scale=0.6)
    net = seeded(UniversalEncoder(), seed=1, scale=0.6)
    f = dy2st.to_static(net, input_spec=[InputSpec([None, None], "int64")])
    rng = np.random.default_rng(1)
    hops = set()
    for b, n in ((1, 3), (2, 6), (3, 5), (1, 8), (4, 2)):
        x = paddle.to_tensor(rng.integers(0, 20, (b, n)))
        want, got = eager(x), f(x)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        hops.add(float(want[2]))
    assert len(hops) > 1  # the loop ran a different number of times
    assert len(f.forward.program_cache) == 1
