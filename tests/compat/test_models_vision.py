"""Vision models and deployment as Paddle 2.x users write them, ported by changing imports: a
UNet-style segmentation net (``F.interpolate`` and concatenated skips, a per-pixel loss), a ResNet
switching BatchNorm between train and eval, a VAE sampling with ``paddle.randn_like``, a model saved
with ``InputSpec([None, None])`` and fine-tuned after loading, and ``paddle.Model`` training a
converted network. Losses, outputs, parameters and BatchNorm statistics equal eager bitwise."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

from .helpers import train_same


class UNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.d1 = nn.Sequential(nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2D(4, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU())
        self.up = nn.Conv2DTranspose(8, 4, 2, stride=2)
        self.u1 = nn.Conv2D(8, 4, 3, padding=1)
        self.head = nn.Conv2D(4, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        u = F.interpolate(b, size=a.shape[2:], mode="bilinear", align_corners=False)
        c = F.relu(self.u1(paddle.concat([a, self.up(b)], axis=1))) + u[:, :4]
        return self.head(c)


def test_unet_segmentation_with_interpolate_and_skips_trains_and_evaluates_like_eager():
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((2, 3, 8, 8)).astype("float32"), rng.integers(0, 2, (2, 8, 8)))
            for _ in range(2)]
    eager, net = train_same(UNet, data, lambda m, x, y: F.cross_entropy(
        m(x).transpose([0, 2, 3, 1]), y.unsqueeze(-1), ignore_index=255))
    eager.eval(), net.eval()
    x = paddle.to_tensor(data[0][0])
    np.testing.assert_array_equal(net(x).numpy(), eager(x).numpy())


class Block(nn.Layer):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1, self.b1 = nn.Conv2D(cin, cout, 3, stride, 1, bias_attr=False), nn.BatchNorm2D(cout)
        self.c2, self.b2 = nn.Conv2D(cout, cout, 3, 1, 1, bias_attr=False), nn.BatchNorm2D(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2D(cin, cout, 1, stride, bias_attr=False), nn.BatchNorm2D(cout))

    def forward(self, x):
        out = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
        return F.relu(out + (x if self.short is None else self.short(x)))


class ResNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, 4, 3, 1, 1), nn.BatchNorm(4, act="relu"))
        self.layers = nn.Sequential(Block(4, 4, 1), Block(4, 8, 2))
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc(paddle.flatten(F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1), 1))


def test_resnet_batchnorm_train_eval_switching_matches_eager():
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((2, 3, 8, 8)).astype("float32"), rng.integers(0, 5, (2, 1))) for _ in range(2)]
    eager, net = train_same(ResNet, data, lambda m, x, y: F.cross_entropy(m(x), y), lambda p: paddle.optimizer.Momentum(
        0.1, momentum=0.9, parameters=p, weight_decay=paddle.regularizer.L2Decay(1e-4)))
    x = paddle.to_tensor(data[1][0])
    for mode in ("eval", "train", "eval"):
        getattr(eager, mode)()
        getattr(net, mode)()
        np.testing.assert_array_equal(net(x).numpy(), eager(x).numpy())
    for k, v in eager.state_dict().items():  # the train-mode call moved the running stats alike
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)


class VAE(nn.Layer):
    def __init__(self):
        super().__init__()
        self.enc, self.mu, self.logvar = nn.Linear(16, 8), nn.Linear(8, 2), nn.Linear(8, 2)
        self.dec = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 16), nn.Sigmoid())

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + paddle.randn_like(mu) * paddle.exp(0.5 * logvar) if self.training else mu
        return self.dec(z), mu, logvar


def _vae_loss(m, x):
    recon, mu, logvar = m(x)
    kld = -0.5 * paddle.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (F.binary_cross_entropy(recon, x, reduction="sum") + kld) / x.shape[0]


def test_vae_with_randn_like_reparameterisation_trains_like_eager():
    rng = np.random.default_rng(0)
    eager, net = train_same(VAE, [(rng.uniform(0, 1, (4, 16)).astype("float32"),) for _ in range(2)], _vae_loss)
    paddle.seed(3)
    a = paddle.randn_like(paddle.ones([2, 3], "float64"))
    paddle.seed(3)
    np.testing.assert_array_equal(a.numpy(), paddle.randn([2, 3], "float64").numpy())
    assert paddle.rand_like(a, dtype="float32").dtype == paddle.float32


class Tagger(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb, self.lstm = nn.Embedding(20, 6), nn.LSTM(6, 5)
        self.bn, self.fc = nn.BatchNorm1D(5), nn.Linear(5, 3)

    def forward(self, ids):
        out, _ = self.lstm(self.emb(ids))
        return self.fc(self.bn(out.mean(axis=1)))


def test_a_model_saved_with_none_dims_fine_tunes_after_loading_like_eager(tmp_path):
    rng = np.random.default_rng(0)
    paddle.seed(1)
    net = dy2st.to_static(Tagger(), input_spec=[InputSpec([None, None], "int64", "ids")])
    dy2st.save(net, str(tmp_path / "tagger"))
    ref = Tagger()
    ref.set_state_dict(net.state_dict())
    loaded = dy2st.load(str(tmp_path / "tagger"))
    runs = []
    for m in (ref, loaded):
        m.train()
        opt = paddle.optimizer.SGD(0.1, parameters=m.parameters())
        losses = []
        for shape in ((4, 7), (3, 5)):  # other batch sizes and lengths than any traced
            r = np.random.default_rng(shape[0])
            loss = F.cross_entropy(m(paddle.to_tensor(r.integers(0, 20, shape))),
                                   paddle.to_tensor(r.integers(0, 3, (shape[0], 1))))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        runs.append(losses)
        m.eval()
    assert runs[1] == runs[0]
    x = paddle.to_tensor(rng.integers(0, 20, (2, 3)))
    np.testing.assert_array_equal(loaded(x).numpy(), ref(x).numpy())


class Digits(paddle.io.Dataset):
    def __init__(self, n):
        r = np.random.default_rng(n)
        self.x = r.standard_normal((n, 1, 8, 8)).astype("float32")
        self.y = r.integers(0, 4, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def test_paddle_model_fits_evaluates_and_predicts_a_converted_network_like_eager(tmp_path):
    results = []
    for convert in (False, True):
        paddle.seed(2)
        net = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2),
                            nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, 4))
        net = dy2st.to_static(net) if convert else net
        model = paddle.Model(net, inputs=[InputSpec([None, 1, 8, 8], "float32", "x")],
                             labels=[InputSpec([None, 1], "int64", "y")])
        sched = paddle.optimizer.lr.PiecewiseDecay([2], [0.01, 0.001])
        model.prepare(paddle.optimizer.Adam(sched, parameters=model.parameters()), nn.CrossEntropyLoss(),
                      paddle.metric.Accuracy(topk=(1, 2)))
        paddle.seed(5)
        model.fit(Digits(16), epochs=2, batch_size=8, verbose=0, shuffle=False,
                  callbacks=[paddle.callbacks.LRScheduler(by_step=True)])
        ev = model.evaluate(Digits(8), batch_size=4, verbose=0)
        pred = model.predict(Digits(8), batch_size=4, verbose=0, stack_outputs=True)[0]
        model.save(str(tmp_path / f"m{int(convert)}"))
        results.append((ev, pred, [p.numpy() for p in net.parameters()]))
    (ev0, p0, w0), (ev1, p1, w1) = results
    assert ev1 == ev0
    np.testing.assert_array_equal(p1, p0)
    for a, b in zip(w0, w1):
        np.testing.assert_array_equal(b, a)


class GradCAMNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = nn.Conv2D(1, 4, 3, padding=1), nn.Linear(4, 3)
        self.grads = None

    def save_grad(self, g):
        self.grads = g

    def forward(self, x):
        f = F.relu(self.conv(x))
        f.register_hook(self.save_grad)
        return self.fc(f.mean([2, 3]))


def test_a_gradient_hook_that_stores_the_gradient_in_converted_code_is_flagged():
    # Grad-CAM's hook kept a Variable with no values, silently; eagerly it gets the gradient.
    net = dy2st.to_static(GradCAMNet())
    with pytest.warns(UserWarning, match="save_grad.*returned None inside a converted function"):
        net(paddle.ones([1, 1, 4, 4])).sum().backward()  # (the backward is built with the Program)


def _resumable():
    paddle.seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.ReLU(), nn.Linear(4, 2))
    sched = paddle.optimizer.lr.CosineAnnealingDecay(0.1, 10)
    opt = paddle.optimizer.Adam(sched, parameters=m.parameters(), grad_clip=nn.ClipGradByGlobalNorm(1.0))

    @dy2st.to_static
    def step(x, y):
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()
        return loss
    return m, opt, step


def test_training_resumed_from_saved_state_continues_bitwise(tmp_path):
    # paddle.utils.unique_name.guard was missing: a model rebuilt in the same process got other
    # parameter names, so its saved optimizer state could not load.
    rng = np.random.default_rng(0)
    data = [(paddle.to_tensor(rng.standard_normal((4, 3)).astype("float32")), paddle.to_tensor(rng.integers(0, 2, (4, 1))))
            for _ in range(4)]
    with paddle.utils.unique_name.guard():
        m, opt, step = _resumable()
    straight = [float(step(x, y)) for x, y in data]
    with paddle.utils.unique_name.guard():
        m, opt, step = _resumable()
    got = [float(step(x, y)) for x, y in data[:2]]
    paddle.save(m.state_dict(), str(tmp_path / "m.pdparams"))
    paddle.save(opt.state_dict(), str(tmp_path / "m.pdopt"))
    with paddle.utils.unique_name.guard():
        m, opt, step = _resumable()
    m.set_state_dict(paddle.load(str(tmp_path / "m.pdparams")))
    opt.set_state_dict(paddle.load(str(tmp_path / "m.pdopt")))
    got += [float(step(x, y)) for x, y in data[2:]]
    assert got == straight
    name = paddle.utils.unique_name.generate("fc")
    with paddle.utils.unique_name.guard():
        assert paddle.utils.unique_name.generate("fc") == "fc_0"
    assert paddle.utils.unique_name.generate("fc") == f"fc_{int(name.split('_')[1]) + 1}"


def test_finfo_iinfo_and_set_grad_enabled_as_model_code_uses_them():
    f = paddle.finfo(paddle.float32)
    assert (f.min, f.max, f.eps, f.bits, f.dtype, f.resolution) == (
        float(np.finfo("float32").min), float(np.finfo("float32").max), float(np.finfo("float32").eps),
        32, "float32", 1e-06)
    assert (paddle.iinfo("int64").max, paddle.iinfo(paddle.int32).min) == (2 ** 63 - 1, -2 ** 31)
    lin = nn.Linear(2, 2)

    def masked(x, mask, train):
        with paddle.set_grad_enabled(train):  # the attention-mask fill PaddleNLP uses
            y = paddle.where(mask, lin(x), paddle.full_like(x, paddle.finfo(x.dtype).min))
        return y, lin(x)
    sf = dy2st.to_static(masked)
    x, mask = paddle.ones([1, 2]), paddle.to_tensor([[True, False]])
    for train in (True, False):
        (y, z), (sy, sz) = masked(x, mask, train), sf(x, mask, train)
        np.testing.assert_array_equal(sy.numpy(), y.numpy())
        assert (sy.stop_gradient, sz.stop_gradient) == (y.stop_gradient, z.stop_gradient) == (not train, False)
    paddle.set_grad_enabled(False)  # a plain call switches it until switched back
    try:
        assert not paddle.is_grad_enabled() and lin(x).stop_gradient
    finally:
        paddle.set_grad_enabled(True)
    assert paddle.is_grad_enabled()


def test_a_training_script_asks_the_distributed_environment_and_runs_single_process():
    import runtime.distributed as dist  # as `import paddle.distributed as dist`
    env = paddle.distributed.ParallelEnv()
    assert (env.nranks, env.local_rank, dist.get_rank(), dist.get_world_size()) == (1, 0, 0, 1)
    assert not dist.is_initialized() and dist.init_parallel_env() is None and dist.barrier() is None
