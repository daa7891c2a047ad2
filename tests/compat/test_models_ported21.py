"""A Switch Transformer layer and a deep-equilibrium fixed-point layer ported by changing imports. The
Switch layer: top-1 routing with an expert capacity computed from the run-time token count (each
token's place in its expert's queue by a ``cumsum`` of one-hots; tokens past the capacity dropped and
passed through), experts run on their tokens only (a tensor ``if`` skips an empty one, ``scatter``
writes the results back) and the load-balancing loss. The fixed-point layer iterates a tensor ``while``
until it converges. Trained under ``to_static`` they equal eager bitwise and serve any batch from one
Program, saved and loaded."""
import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import seeded
from tests.compat.port_checks import same_training as _same_training


class SwitchFFN(nn.Layer):
    def __init__(self, d=6, hidden=8, num_experts=3, capacity_factor=1.0):
        super().__init__()
        self.num_experts, self.capacity_factor = num_experts, capacity_factor
        self.router = nn.Linear(d, num_experts, bias_attr=False)
        self.experts = nn.LayerList([nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, d))
                                     for _ in range(num_experts)])

    def forward(self, x):
        d = x.shape[-1]
        tokens = x.reshape([-1, d])
        probs = F.softmax(self.router(tokens), axis=-1)
        gate, expert = paddle.max(probs, axis=-1), paddle.argmax(probs, axis=-1)
        n = paddle.shape(tokens)[0]
        capacity = (n.astype("float32") * self.capacity_factor / self.num_experts).astype("int64") + 1
        onehot = F.one_hot(expert, self.num_experts)
        position = (paddle.cumsum(onehot, axis=0) * onehot).sum(-1)  # 1-based place in its expert's queue
        keep = position <= capacity.astype(position.dtype)
        out = tokens  # dropped tokens pass through unchanged
        for e in range(self.num_experts):
            sel = paddle.nonzero((expert == e) & keep).flatten()
            if sel.shape[0] > 0:
                y = self.experts[e](paddle.gather(tokens, sel)) * gate[sel].unsqueeze(-1)
                out = paddle.scatter(out, sel, y)
        aux_loss = self.num_experts * paddle.sum(onehot.mean(0) * probs.mean(0))
        return out.reshape(x.shape), aux_loss, (1 - keep.astype("float32")).sum()


class SwitchClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 6)
        self.moe = SwitchFFN()
        self.head = nn.Linear(6, 3)

    def forward(self, ids):
        h, aux, dropped = self.moe(self.emb(ids))
        return self.head(h.mean(1)), aux, dropped


def test_switch_ffn_with_capacity_trains_like_eager_and_drops_as_eager(tmp_path):
    rng = np.random.default_rng(0)
    batches = [(rng.integers(0, 12, (b, n)),) for b, n in ((4, 5), (5, 4))]
    _same_training(SwitchClassifier, [InputSpec([None, None], "int64")], batches,
                   lambda o, b: F.cross_entropy(o[0], paddle.to_tensor(b[0][:, 0] % 3)) + 0.1 * o[1], tmp_path)
    net = seeded(SwitchClassifier(), seed=1, scale=0.8)
    f = dy2st.to_static(seeded(SwitchClassifier(), seed=1, scale=0.8), input_spec=[InputSpec([None, None], "int64")])
    dropped = set()
    for b, n in ((1, 1), (2, 6), (4, 3), (1, 2)):
        ids = paddle.to_tensor(rng.integers(0, 12, (b, n)))
        want, got = net(ids), f(ids)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        (want[0].sum() + want[1]).backward()
        (got[0].sum() + got[1]).backward()
        for (k, p), q in zip(net.named_parameters(), f.parameters()):
            assert (q.grad is None) == (p.grad is None), k
            np.testing.assert_array_equal(np.asarray(q.grad), np.asarray(p.grad), err_msg=k)
        net.clear_gradients()
        f.clear_gradients()
        dropped.add(int(want[2]))
    assert 0 in dropped and len(dropped) > 1  # some batches overflow an expert
    assert len(f.forward.program_cache) == 1


class DEQFixedPoint(nn.Layer):
    """A deep-equilibrium style layer: ``z = tanh(W z + U x)`` iterated until the update is below ``tol``
    (a tensor ``while`` whose trip count depends on the input), gradients through every iteration."""

    def __init__(self, d=6, classes=3, tol=1e-3, max_iter=30):
        super().__init__()
        self.tol, self.max_iter = tol, max_iter
        self.W = nn.Linear(d, d, bias_attr=False)
        self.U = nn.Linear(4, d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        ux = self.U(x)
        z = paddle.zeros_like(ux)
        diff = paddle.to_tensor(1.0)
        i = 0
        while diff > self.tol and i < self.max_iter:
            z_new = paddle.tanh(self.W(z) + ux)
            diff = paddle.norm(z_new - z) / (paddle.norm(z_new) + 1e-8)
            z = z_new
            i += 1
        return self.head(z), i


def test_deq_fixed_point_iterates_as_eagerly_and_trains_through_the_loop(tmp_path):
    rng = np.random.default_rng(2)
    batches = [(rng.standard_normal((n, 4)).astype("float32"),) for n in (3, 2, 5)]
    _same_training(DEQFixedPoint, [InputSpec([None, 4])], batches,
                   lambda o, b: F.cross_entropy(o[0], paddle.to_tensor((b[0][:, 0] > 0).astype("int64"))), tmp_path)
    net = seeded(DEQFixedPoint(), seed=3)
    f = dy2st.to_static(seeded(DEQFixedPoint(), seed=3), input_spec=[InputSpec([None, 4])])
    iterations = set()
    for n, s in ((2, 0.1), (3, 3.0), (1, 1.0)):
        x = paddle.to_tensor((rng.standard_normal((n, 4)) * s).astype("float32"))
        (want, want_i), (got, got_i) = net(x), f(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert int(got_i) == want_i
        iterations.add(want_i)
        want.sum().backward()
        got.sum().backward()
        for (k, p), q in zip(net.named_parameters(), f.parameters()):
            np.testing.assert_array_equal(q.grad.numpy(), p.grad.numpy(), err_msg=k)
        net.clear_gradients()
        f.clear_gradients()
    assert len(iterations) > 1
    assert len(f.forward.program_cache) == 1
