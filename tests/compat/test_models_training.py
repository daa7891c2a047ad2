"""Training scripts as Paddle 2.x users write them, ported by changing imports: a DCGAN step with
two optimizers and BatchNorm, a PINN residual from ``paddle.grad(create_graph=True)`` of a net fed
``concat([x, t])``, an EMA of the weights under ``no_grad`` (``set_value`` and in-place methods),
gradient accumulation with ``ClipGradByGlobalNorm`` and a warmup scheduler, a DeepFM recommender.
Each converted step leaves losses and parameters bitwise equal to the eager loop."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn


def _same_run(run):
    """``run(convert)`` -> (losses, parameter arrays); eager and converted must agree bitwise."""
    (le, pe), (ls, ps) = run(False), run(True)
    assert ls == le
    for a, b in zip(pe, ps):
        np.testing.assert_array_equal(b, a)
    return le


class Generator(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8 * 2 * 2)
        self.net = nn.Sequential(nn.Conv2DTranspose(8, 4, 4, 2, 1), nn.BatchNorm2D(4), nn.ReLU(),
                                 nn.Conv2DTranspose(4, 1, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.net(self.fc(z).reshape([-1, 8, 2, 2]))


class Discriminator(nn.Layer):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2D(1, 4, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2D(4, 8, 4, 2, 1),
                                 nn.BatchNorm2D(8), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


def test_dcgan_step_with_two_optimizers_and_batchnorm_trains_like_eager():
    # The generator's loss reads D after od.step(); D's BatchNorm running stats (written by the
    # discriminator's forwards before the step) once made the converted backward refuse it.
    def run(convert):
        paddle.seed(5)
        G, D = Generator(), Discriminator()
        og = paddle.optimizer.Adam(2e-4, beta1=0.5, parameters=G.parameters())
        od = paddle.optimizer.Adam(2e-4, beta1=0.5, parameters=D.parameters())

        def step(real, z):
            fake = G(z)
            d_real, d_fake = D(real), D(fake.detach())
            d_loss = F.binary_cross_entropy_with_logits(d_real, paddle.ones_like(d_real)) + \
                F.binary_cross_entropy_with_logits(d_fake, paddle.zeros_like(d_fake))
            d_loss.backward()
            od.step()
            od.clear_grad()
            g_out = D(fake)
            g_loss = F.binary_cross_entropy_with_logits(g_out, paddle.ones_like(g_out))
            g_loss.backward()
            og.step()
            og.clear_grad()
            od.clear_grad()
            return d_loss, g_loss
        step = dy2st.to_static(step) if convert else step
        rng, out = np.random.default_rng(1), []
        for _ in range(2):
            real = paddle.to_tensor(rng.uniform(-1, 1, (2, 1, 8, 8)).astype("float32"))
            d, g = step(real, paddle.to_tensor(rng.standard_normal((2, 4)).astype("float32")))
            out.append((float(d), float(g)))
        return out, [p.numpy() for p in G.parameters() + D.parameters() + D.buffers()]
    _same_run(run)


def test_reading_a_parameter_the_step_changed_is_still_refused_as_eagerly():
    net = nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())

    def step(x):
        loss = net(x).sum()
        loss.backward()
        opt.step()
        (loss * 2).backward()
    with pytest.raises(RuntimeError, match="before opt.step"):
        dy2st.to_static(step)(paddle.ones([1, 2]))


class PINN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, x, t):
        return self.net(paddle.concat([x, t], axis=1))


def _burgers_loss(m, x, t):
    x.stop_gradient = False
    t.stop_gradient = False
    u = m(x, t)
    u_x, u_t = paddle.grad(u, [x, t], grad_outputs=paddle.ones_like(u), create_graph=True)
    u_xx = paddle.grad(u_x, x, grad_outputs=paddle.ones_like(u_x), create_graph=True)[0]
    return paddle.mean((u_t + u * u_x - 0.01 * u_xx) ** 2)


def test_pinn_second_derivatives_through_concat_train_like_eager():
    # concat's gradient (concat_grad) had no gradient: create_graph=True through it raised.
    rng = np.random.default_rng(0)
    data = [(rng.uniform(-1, 1, (6, 1)).astype("float32"), rng.uniform(0, 1, (6, 1)).astype("float32"))
            for _ in range(2)]

    def run(convert):
        paddle.seed(5)
        m = PINN()
        opt = paddle.optimizer.Adam(1e-2, parameters=m.parameters())

        def step(x, t):
            loss = _burgers_loss(m, x, t)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        step = dy2st.to_static(step) if convert else step
        return [float(step(paddle.to_tensor(x), paddle.to_tensor(t))) for x, t in data], \
            [p.numpy() for p in m.parameters()]
    _same_run(run)
    # the second derivative itself against finite differences of the first (float64)
    x = paddle.to_tensor([[0.3], [-0.2]], dtype="float64", stop_gradient=False)
    y = paddle.concat([x * x * x, x], axis=1).sum(axis=1)
    gx = paddle.grad(y, x, create_graph=True)[0]  # 3x^2 + 1
    gxx = paddle.grad(gx.sum(), x)[0]
    np.testing.assert_allclose(gxx.numpy(), 6 * x.numpy(), rtol=1e-12)


def test_create_graph_through_a_converted_layer_says_to_convert_the_loss():
    m = dy2st.to_static(PINN())
    with pytest.raises(NotImplementedError, match="converted .to_static. function.*inside the converted"):
        _burgers_loss(m, paddle.ones([2, 1]), paddle.ones([2, 1]))


class Head(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return self.fc(x)


@pytest.mark.parametrize("update", ["set_value", "inplace"])
def test_ema_of_the_weights_under_no_grad_follows_every_step(update):
    # set_value of a Program value raised a TypeError; in-place methods on a parameter under
    # no_grad were refused eagerly (Paddle allows both) and inside converted code.
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((4, 6)).astype("float32"), rng.integers(0, 4, (4,))) for _ in range(3)]

    def run(convert):
        paddle.seed(3)
        m, ema = Head(), Head()
        ema.set_state_dict(m.state_dict())
        opt = paddle.optimizer.SGD(0.1, parameters=m.parameters())

        def step(x, y):
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            with paddle.no_grad():
                for p, q in zip(m.parameters(), ema.parameters()):
                    if update == "set_value":
                        q.set_value(q * 0.9 + p * 0.1)
                    else:
                        q.scale_(0.9).add_(p * 0.1)
            return loss
        step = dy2st.to_static(step) if convert else step
        out = [float(step(paddle.to_tensor(x), paddle.to_tensor(y))) for x, y in data]
        assert all(not q.stop_gradient for q in ema.parameters())  # still parameters that train
        return out, [q.numpy() for q in ema.parameters()]
    _same_run(run)


def test_set_value_of_a_constant_inside_a_converted_forward_runs_at_every_call():
    class Reset(nn.Layer):
        def __init__(self):
            super().__init__()
            self.h = paddle.create_parameter([2], "float32")
            self.h.stop_gradient = True

        def forward(self, x):
            self.h.set_value(np.zeros(2, "float32"))  # once ran only while the Program was built
            self.h.set_value(self.h + x.sum(0))
            return self.h * 2

    eager, static = Reset(), Reset()
    conv = dy2st.to_static(static)
    for k in (1.0, 2.0, 3.0):
        x = paddle.full([1, 2], k)
        np.testing.assert_array_equal(conv(x).numpy(), eager(x).numpy())
        np.testing.assert_array_equal(static.h.numpy(), eager.h.numpy())
        for m in (eager, static):  # the next call resets it (the Program once kept this value: [6, 6])
            m.h.set_value(np.full(2, 5.0, "float32"))
    with pytest.raises(ValueError, match="has shape"):
        dy2st.to_static(lambda x: static.h.set_value(x))(paddle.ones([3]))


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1, self.bn, self.l2 = nn.Linear(6, 8), nn.BatchNorm1D(8), nn.Linear(8, 3)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        return self.l2(self.drop(F.relu(self.bn(self.l1(x)))))


def test_gradient_accumulation_clipping_and_warmup_in_a_converted_step():
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((4, 6)).astype("float32"), rng.integers(0, 3, (4, 1))) for _ in range(6)]

    def run(convert, accum=2):
        paddle.seed(9)
        m = MLP()
        sched = paddle.optimizer.lr.LinearWarmup(paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=10),
                                                 warmup_steps=2, start_lr=0.0, end_lr=0.1)
        opt = paddle.optimizer.Momentum(sched, momentum=0.9, parameters=m.parameters(),
                                        grad_clip=nn.ClipGradByGlobalNorm(0.5))

        def step(x, y, i):
            loss = F.cross_entropy(m(x), y) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.clear_grad()
                sched.step()
            return loss
        step = dy2st.to_static(step) if convert else step
        out = [float(step(paddle.to_tensor(x), paddle.to_tensor(y), i)) for i, (x, y) in enumerate(data)]
        return out + [opt.get_lr()], [p.numpy() for p in m.parameters() + m.buffers()]
    _same_run(run)


class DeepFM(nn.Layer):
    def __init__(self, sparse=40, k=4):
        super().__init__()
        self.w = nn.Embedding(sparse, 1, sparse=True)
        self.v = nn.Embedding(sparse, k, sparse=True)
        self.dense = nn.Linear(3, k)
        self.mlp = nn.Sequential(nn.Linear(5 * k, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, ids, dense):
        emb = paddle.concat([self.v(ids), self.dense(dense).unsqueeze(1)], axis=1)
        s = paddle.sum(emb, axis=1)
        second = 0.5 * paddle.sum(s * s - paddle.sum(emb * emb, axis=1), axis=1, keepdim=True)
        return F.sigmoid(paddle.sum(self.w(ids), axis=1) + second + self.mlp(paddle.flatten(emb, 1)))


def test_deepfm_with_sparse_embeddings_trains_like_eager():
    rng = np.random.default_rng(0)
    data = [(rng.integers(0, 40, (4, 4)), rng.standard_normal((4, 3)).astype("float32"),
             rng.integers(0, 2, (4, 1)).astype("float32")) for _ in range(3)]

    def run(convert):
        paddle.seed(7)
        m = DeepFM()
        net = dy2st.to_static(m) if convert else m
        opt = paddle.optimizer.Adagrad(0.05, parameters=m.parameters())
        out = []
        for ids, dense, y in data:
            loss = F.binary_cross_entropy(net(paddle.to_tensor(ids), paddle.to_tensor(dense)), paddle.to_tensor(y))
            loss.backward()
            opt.step()
            opt.clear_grad()
            out.append(float(loss))
        return out, [p.numpy() for p in m.parameters()]
    _same_run(run)


class Detector(nn.Layer):
    def __init__(self):
        super().__init__()
        self.cls, self.reg = nn.Linear(4, 3), nn.Linear(4, 4)

    def forward(self, x):
        return self.cls(x), self.reg(x)


def _ssd_loss(m, x, labels, boxes):
    logits, deltas = m(x)
    pos = labels > 0
    num_pos = paddle.sum(pos.astype("int64"))
    ce = F.cross_entropy(logits, labels.unsqueeze(-1), reduction="none").squeeze(-1)
    # hard negatives: the 3 * num_pos worst (a k known only when the Program runs)
    k = paddle.minimum(num_pos * 3, paddle.to_tensor(labels.shape[0], "int64"))
    _, idx = paddle.topk(paddle.where(pos, paddle.zeros_like(ce), ce), k=k)
    pidx = paddle.nonzero(pos).squeeze(-1)
    reg = F.smooth_l1_loss(paddle.gather(deltas, pidx), paddle.gather(boxes, pidx), reduction="sum")
    total = paddle.gather(ce, idx).sum() + paddle.masked_select(ce, pos).sum() + reg
    return total / paddle.clip(num_pos.astype("float32"), min=1.0)


def test_ssd_loss_with_hard_negative_mining_and_data_dependent_sizes_trains_like_eager():
    # topk(k=<tensor>) was refused in a Program; gather's gradient once broke on an index of
    # unknown length.
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((10, 4)).astype("float32"), rng.choice([0, 0, 0, 1, 2], 10).astype("int64"),
             rng.standard_normal((10, 4)).astype("float32")) for _ in range(3)]

    def run(convert):
        paddle.seed(3)
        m = Detector()
        opt = paddle.optimizer.SGD(0.1, parameters=m.parameters())

        def step(x, labels, boxes):
            loss = _ssd_loss(m, x, labels, boxes)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        step = dy2st.to_static(step) if convert else step
        return [float(step(*[paddle.to_tensor(v) for v in b])) for b in data], [p.numpy() for p in m.parameters()]
    _same_run(run)
    x = paddle.to_tensor([3.0, 1.0, 3.0, 2.0])
    for largest in (True, False):  # the same values and (stable) indices as eager top_k
        got = dy2st.to_static(lambda x, k: paddle.topk(x, k=k, largest=largest))(x, paddle.to_tensor(3))
        want = paddle.topk(x, k=3, largest=largest)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w.numpy())


class Policy(nn.Layer):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))

    def forward(self, s):
        return F.softmax(self.net(s), -1)


def test_policy_gradient_over_episodes_of_any_length_trains_like_eager():
    # ret.std() over the episode's run-time length raised ValueError (var/std of an unknown dim).
    specs = [dy2st.InputSpec([None, 4], "float32"), dy2st.InputSpec([None], "int64"),
             dy2st.InputSpec([None], "float32")]

    def run(convert):
        paddle.seed(0)
        pi = Policy()
        opt = paddle.optimizer.Adam(0.01, parameters=pi.parameters())

        def update(states, actions, rewards):
            returns, g = [], paddle.zeros([1])
            for t in range(rewards.shape[0] - 1, -1, -1):  # discounted returns, back to front
                g = rewards[t] + 0.99 * g
                returns.append(g)
            ret = paddle.flip(paddle.concat(returns), 0)
            ret = (ret - ret.mean()) / (ret.std() + 1e-8)
            probs = pi(states)
            logp = paddle.log(paddle.take_along_axis(probs, actions.unsqueeze(-1), axis=1).squeeze(-1))
            loss = -(logp * ret).mean() + 0.01 * (probs * paddle.log(probs)).sum(-1).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        step = dy2st.to_static(update, input_spec=specs) if convert else update
        r, out = np.random.default_rng(1), []
        for n in (3, 5, 4):
            s = paddle.to_tensor(r.standard_normal((n, 4)).astype("float32"))
            out.append(float(step(s, paddle.to_tensor(r.integers(0, 2, n)),
                                  paddle.to_tensor(r.standard_normal(n).astype("float32")))))
        if convert:
            assert len(step.program_cache) == 1
        return out, [q.numpy() for q in pi.parameters()]
    _same_run(run)


def test_var_and_std_over_run_time_dims_equal_the_known_size_results():
    def f(x):
        return x.std(), paddle.var(x, axis=0), x.std(axis=[0, 1], unbiased=False, keepdim=True)
    sf = dy2st.to_static(f, input_spec=[dy2st.InputSpec([None, None], "float32")])
    for n in (1, 2, 5):  # n = 1: no degree of freedom left, nan as eagerly
        x = np.random.default_rng(n).standard_normal((n, 3)).astype("float32")
        a, b = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(x, stop_gradient=False)
        want, got = f(a), sf(b)
        for w, g in zip(want, got):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        (want[1].sum() + want[2].sum()).backward()
        (got[1].sum() + got[2].sum()).backward()
        np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())
