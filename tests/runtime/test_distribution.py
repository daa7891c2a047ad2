"""rt.distribution against PaddlePaddle 3.3, converted code against eager, samplers statistically."""
import math

import numpy as np
import pytest

import dy2st
import runtime as rt

D = rt.distribution


def f32(*a):
    return rt.to_tensor(np.array(a, np.float32))


def m32(a):
    return rt.to_tensor(np.array(a, np.float32))


# Produced by PaddlePaddle 3.3 (CPU, float32) with the same constructions, each entry
# [log_prob(value), entropy(), kl or a moment] rounded to 6 decimals (/tmp scratch script ref_dist.py:
# ``paddle.distribution.X(...)`` in place of ``rt.distribution.X(...)``).
PADDLE = {
    "Normal": [[-1.333292, -2.031651], [1.824404, 1.062263], [0.344535, 1.111072]],
    "Uniform": [[-0.405465, -np.inf], [0.405465, 1.098612], [0.666667, 0.333333]],
    "Exponential": [[-0.843147, -1.706853], [1.693147, 0.306853], [0.306853, 0.193147]],
    "Laplace": [[-1.231946, -2.050758], [2.098612, 1.336472], [0.169332, 1.069923]],
    "Gumbel": [[-1.414763, -1.537703], [1.982681, 1.220541], [1.365824, -0.595949]],
    "Cauchy": [[-1.567817, -2.158925], [2.936489, 2.174349], [0.080043, 0.701151]],
    "LogNormal": [[-0.765658, -2.170998], [2.324404, 0.062263], [5.078419, 0.470011]],
    "Gamma": [[-0.217646, -1.371028], [-0.314856, 1.933891], [0.648189, 3.087248]],
    "Beta": [[-0.027934, 0.433641], [-0.548418, -0.404996], [0.548418, 1.728656]],
    "Dirichlet": [[0.229355, 1.451515], [-1.48157, -1.550346], [0.788423, 0.107653]],
    "Bernoulli": [[-1.203973, -1.609438], [0.610864, 0.500402], [0.082283, 0.192745]],
    "Geometric": [[-1.917323, -0.223144], [2.036214, 0.625503], [0.082283, 0.192745]],
    "Categorical": [[[-0.693147, -1.791759], [-1.203973, -0.693147]], [0.832396, 1.090636], [[0.266217], [0.056447]]],
    "Multinomial": [[-1.791759, -6.437752], [2.305966, 2.349084], [[0.555556, 0.888889, 1.0], [1.0, 0.64, 0.84]]],
    "MultivariateNormal": [-2.963523, 3.161429, 0.801448],
}
LOC, SCALE, V = (0.5, -1.0), (1.5, 0.7), (0.3, 0.2)
DIR_C = [[0.5, 2.0, 1.0], [3.0, 1.0, 0.7]]
LOGITS = [[1.0, 2.0, 3.0], [0.5, 0.2, 0.3]]
COV = [[2.0, 0.3], [0.3, 1.0]]


def _mine(name):
    """[log_prob, entropy, kl-or-moment] of the construction PADDLE's row was made with."""
    loc, scale = f32(*LOC), f32(*SCALE)
    if name in ("Normal", "Laplace", "Cauchy"):
        d, o = getattr(D, name)(loc, scale), getattr(D, name)(f32(0.0, 1.0), f32(1.0, 2.0))
        return d.log_prob(f32(*V)), d.entropy(), D.kl_divergence(d, o)
    if name in ("Gumbel", "LogNormal"):
        d = getattr(D, name)(loc, scale)
        return d.log_prob(f32(*V) if name == "Gumbel" else f32(0.3, 1.2)), d.entropy(), d.mean
    if name == "Uniform":
        d = D.Uniform(f32(0.0, -1.0), f32(1.5, 2.0))
        return d.log_prob(f32(0.3, 2.5)), d.entropy(), d.prob(f32(*V))
    if name == "Exponential":
        d = D.Exponential(f32(0.5, 2.0))
        return d.log_prob(f32(0.3, 1.2)), d.entropy(), D.kl_divergence(d, D.Exponential(f32(1.0, 1.0)))
    if name in ("Gamma", "Beta"):
        d, o = getattr(D, name)(f32(0.5, 2.0), f32(1.5, 0.7)), getattr(D, name)(f32(1.0, 1.0), f32(1.0, 2.0))
        return d.log_prob(f32(0.3, 1.2) if name == "Gamma" else f32(0.3, 0.8)), d.entropy(), D.kl_divergence(d, o)
    if name == "Dirichlet":
        d = D.Dirichlet(m32(DIR_C))
        return (d.log_prob(m32([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])), d.entropy(),
                D.kl_divergence(d, D.Dirichlet(m32([[1.0, 1.0, 1.0], [2.0, 1.0, 0.5]]))))
    if name in ("Bernoulli", "Geometric"):
        d, o = getattr(D, name)(f32(0.3, 0.8)), getattr(D, name)(f32(0.5, 0.5))
        return d.log_prob(f32(1.0, 0.0) if name == "Bernoulli" else f32(2.0, 0.0)), d.entropy(), D.kl_divergence(d, o)
    if name == "Categorical":
        d = D.Categorical(m32(LOGITS))
        return (d.log_prob(rt.to_tensor(np.array([2, 0]))), d.entropy(),
                D.kl_divergence(d, D.Categorical(m32([[1.0, 1.0, 1.0], [0.1, 0.2, 0.7]]))))
    if name == "Multinomial":
        d = D.Multinomial(4, m32(LOGITS))
        return d.log_prob(m32([[1.0, 1.0, 2.0], [0.0, 4.0, 0.0]])), d.entropy(), d.variance
    d = D.MultivariateNormal(f32(*LOC), covariance_matrix=m32(COV))
    o = D.MultivariateNormal(f32(0.0, 0.0), covariance_matrix=rt.eye(2))
    return d.log_prob(f32(*V)), d.entropy(), D.kl_divergence(d, o)


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_values_match_paddle(name):
    for got, want in zip(_mine(name), PADDLE[name]):
        assert str(got.dtype) == "float32"
        np.testing.assert_allclose(got.numpy(), np.array(want), rtol=2e-6, atol=2e-6, err_msg=name)


def test_transformed_and_independent_match_paddle():
    # Paddle 3.3: TransformedDistribution(Normal, [AffineTransform(1, 2), SigmoidTransform()]).log_prob,
    # ...[TanhTransform()]).log_prob, Independent(Normal([[.5,-1],[0,1]], SCALE), 1).log_prob / .entropy
    base = D.Normal(f32(*LOC), f32(*SCALE))
    t = D.TransformedDistribution(base, [D.AffineTransform(f32(1.0), f32(2.0)), D.SigmoidTransform()])
    np.testing.assert_allclose(t.log_prob(f32(0.3, 0.8)).numpy(), [-0.907298, -0.875483], atol=2e-6)
    th = D.TransformedDistribution(base, [D.TanhTransform()])
    np.testing.assert_allclose(th.log_prob(f32(0.3, -0.8)).numpy(), [-1.238156, 0.449465], atol=2e-6)
    ind = D.Independent(D.Normal(m32([[0.5, -1.0], [0.0, 1.0]]), f32(*SCALE)), 1)
    assert ind.batch_shape == (2,) and ind.event_shape == (2,)
    np.testing.assert_allclose(ind.log_prob(f32(*V)).numpy(), [-3.364944, -2.559729], atol=2e-6)
    np.testing.assert_allclose(ind.entropy().numpy(), [2.886667, 2.886667], atol=2e-6)
    ln = D.TransformedDistribution(base, [D.ExpTransform()])
    np.testing.assert_allclose(ln.log_prob(f32(0.3, 1.2)).numpy(), D.LogNormal(f32(*LOC), f32(*SCALE)).log_prob(
        f32(0.3, 1.2)).numpy(), rtol=1e-6)


# shapes and dtypes of Paddle 3.3's samples for shape [2, 3] (sample / rsample)
SHAPES = [
    (lambda: D.Normal(f32(*LOC), f32(*SCALE)), (2, 3, 2), "float32"),
    (lambda: D.Normal(0.0, 1.0), (2, 3), "float32"),
    (lambda: D.Uniform(f32(0.0, -1.0), f32(1.5, 2.0)), (2, 3, 2), "float32"),
    (lambda: D.Categorical(m32(LOGITS)), (2, 3, 2), "int64"),
    (lambda: D.Categorical(f32(1.0, 2.0, 3.0)), (2, 3), "int64"),
    (lambda: D.Bernoulli(f32(0.3, 0.8)), (2, 3, 2), "float32"),
    (lambda: D.Dirichlet(m32(DIR_C)), (2, 3, 2, 3), "float32"),
    (lambda: D.Beta(f32(0.5, 2.0), f32(1.5, 0.7)), (2, 3, 2), "float32"),
    (lambda: D.Gamma(f32(0.5, 2.0), f32(1.5, 0.7)), (2, 3, 2), "float32"),
    (lambda: D.Multinomial(4, m32(LOGITS)), (2, 3, 2, 3), "float32"),
    (lambda: D.MultivariateNormal(f32(*LOC), covariance_matrix=m32(COV)), (2, 3, 2), "float32"),
    (lambda: D.Geometric(f32(0.3, 0.8)), (2, 3, 2), "float32"),
]


@pytest.mark.parametrize("k", range(len(SHAPES)))
def test_sample_shapes_and_dtypes(k):
    make, shape, dtype = SHAPES[k]
    s = make().sample([2, 3])
    assert tuple(s.shape) == shape and str(s.dtype) == dtype
    assert tuple(make().sample().shape) == shape[2:]


def test_sampler_moments():
    rt.seed(7)
    n = 20000
    cases = [
        (D.Normal(f32(0.5), f32(2.0)), 0.5, 4.0),
        (D.Uniform(f32(-1.0), f32(3.0)), 1.0, 16 / 12),
        (D.Exponential(f32(2.0)), 0.5, 0.25),
        (D.Laplace(f32(1.0), f32(0.5)), 1.0, 0.5),
        (D.Gumbel(f32(1.0), f32(0.5)), 1.0 + 0.5 * 0.5772157, math.pi ** 2 / 24),
        (D.LogNormal(f32(0.0), f32(0.5)), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
        (D.Gamma(f32(3.0), f32(2.0)), 1.5, 0.75),
        (D.Beta(f32(2.0), f32(3.0)), 0.4, 0.04),
        (D.Bernoulli(f32(0.3)), 0.3, 0.21),
        (D.Geometric(f32(0.4)), 1.5, 3.75),
        (D.Categorical(f32(0.0, math.log(2.0), math.log(7.0))), 1.6, 0.44),  # softmax: 0.1, 0.2, 0.7
    ]
    for d, mean, var in cases:
        s = d.sample([n]).numpy().astype(np.float64).reshape(-1)
        assert abs(s.mean() - mean) < 4 * math.sqrt(var / n) + 1e-3, type(d).__name__
        assert abs(s.var() - var) < 0.05 * var + 1e-3, type(d).__name__
    masked = D.Categorical(m32([[float("-inf"), 0.0, float("-inf"), 1.0]]))  # probability 0 is never drawn
    assert set(np.unique(masked.sample([4000]).numpy())) == {1, 3}
    m = D.Multinomial(5, f32(0.2, 0.3, 0.5)).sample([4000]).numpy()
    assert (m.sum(-1) == 5).all()
    np.testing.assert_allclose(m.mean(0), [1.0, 1.5, 2.5], atol=0.06)
    mv = D.MultivariateNormal(f32(1.0, -1.0), covariance_matrix=m32(COV)).sample([n]).numpy()
    np.testing.assert_allclose(np.cov(mv.T), COV, atol=0.06)
    dr = D.Dirichlet(f32(1.0, 2.0, 3.0)).sample([n]).numpy()
    np.testing.assert_allclose(dr.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.01)


def test_rsample_gradient_matches_finite_differences():
    def draw(loc, scale, grad=False):
        rt.seed(3)
        lt = rt.to_tensor(loc, stop_gradient=not grad)
        st = rt.to_tensor(scale, stop_gradient=not grad)
        z = D.Normal(lt, st).rsample([5])
        return z, lt, st
    loc, scale = np.array([0.5, -1.0]), np.array([1.5, 0.7])
    z, lt, st = draw(loc, scale, True)
    w = np.random.default_rng(0).standard_normal(z.shape)
    rt.sum(z * rt.to_tensor(w)).backward()
    for x, t in ((loc, lt), (scale, st)):
        num = np.zeros(2)
        for i in range(2):
            x[i] += 1e-6
            hi = (draw(loc, scale)[0].numpy() * w).sum()
            x[i] -= 2e-6
            lo = (draw(loc, scale)[0].numpy() * w).sum()
            x[i] += 1e-6
            num[i] = (hi - lo) / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-5)


def test_gamma_family_log_prob_gradient_finite_differences():
    # through lgamma/digamma (and digamma's trigamma gradient via the entropy)
    def f(c):
        d = D.Dirichlet(c)
        return rt.sum(d.log_prob(rt.to_tensor(np.array([0.2, 0.3, 0.5])))) + rt.sum(d.entropy())
    c0 = np.array([0.7, 2.0, 1.3])
    t = rt.to_tensor(c0, stop_gradient=False)
    f(t).backward()
    num = [(f(rt.to_tensor(c0 + e)).item() - f(rt.to_tensor(c0 - e)).item()) / 2e-6 for e in np.eye(3) * 1e-6]
    np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-5)


def _vae_step(mu, log_sigma):
    q = D.Normal(mu, rt.exp(log_sigma))
    z = q.rsample([3])
    kl = D.kl_divergence(q, D.Normal(rt.zeros_like(mu), rt.ones_like(mu)))
    return z, rt.sum(kl) + rt.mean(z * z)


def _pg_step(logits, adv):
    d = D.Categorical(logits)
    a = d.sample()
    return a, rt.mean(-d.log_prob(a) * adv) - 0.01 * rt.mean(d.entropy())


@pytest.mark.parametrize("step", [_vae_step, _pg_step], ids=["vae", "policy_gradient"])
def test_converted_matches_eager_with_gradients_and_draws_fresh(step):
    if step is _vae_step:
        ins = [np.array([[0.5, -1.0], [0.2, 0.3]], np.float32), np.array([[0.1, -0.3], [0.0, 0.2]], np.float32)]
    else:
        ins = [np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 1.0]], np.float32), np.array([1.0, -1.0], np.float32)]
    conv = dy2st.to_static(step, input_spec=[dy2st.InputSpec([None] + list(x.shape[1:]), "float32") for x in ins])
    results = []
    for fn in (step, conv):
        rt.seed(11)
        ts = [rt.to_tensor(x, stop_gradient=False) for x in ins]
        sample, loss = fn(*ts)
        loss.backward()
        results.append((sample.numpy(), loss.numpy(), ts[0].grad.numpy()))
    for e, c in zip(*results):
        np.testing.assert_allclose(c, e, rtol=1e-6, atol=1e-7)
    assert len(conv.program_cache) == 1
    again = conv(*[rt.to_tensor(x) for x in ins])[0].numpy()   # a new run draws new values
    if step is _vae_step:
        assert not np.allclose(again, results[1][0])
    # a batch of another size runs in the same Program
    big = [np.concatenate([x, x]) for x in ins]
    assert conv(*[rt.to_tensor(x) for x in big])[0].shape[-len(ins[0].shape):][0] == 4
    assert len(conv.program_cache) == 1


def test_register_kl_and_errors():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Uniform)
    def _kl(p, q):
        return rt.zeros_like(p.loc) + 42.0

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Uniform(0.0, 1.0)).item() == 42.0
    # the most specific rule wins: MyNormal vs Normal falls back to Normal's
    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0
    with pytest.raises(NotImplementedError, match="no KL rule"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0))
    with pytest.raises(ValueError, match="Cauchy distribution has no mean"):
        _ = D.Cauchy(0.0, 1.0).mean
    with pytest.raises(ValueError, match="exactly one of"):
        D.MultivariateNormal(f32(0.0, 0.0))
    # Paddle 3.3's messages
    with pytest.raises(ValueError, match="The arg of `df` must be positive"):
        D.Chi2(-1.0)
    with pytest.raises(ValueError, match="total_count must be int type and grater than zero"):
        D.Multinomial(0, f32(0.5, 0.5))
    with pytest.raises(ValueError, match=r"Expected 0 < reinterpreted_batch_rank <= 1, but got 2"):
        D.Independent(D.Normal(f32(0.0), f32(1.0)), 2)


def test_event_rank_transforms_match_paddle():
    # Paddle 3.3 values of the same calls (StickBreaking/Softmax/Reshape/IndependentTransform and
    # TransformedDistribution over Normal(x, 1))
    x = m32([[0.3, -1.2, 0.5], [1.1, 0.2, -0.4]])
    simp = m32([[0.2, 0.3, 0.1, 0.4], [0.5, 0.1, 0.1, 0.3]])
    sb = D.StickBreakingTransform()
    np.testing.assert_allclose(sb.forward(x).numpy(), [[0.310322, 0.090269, 0.373107, 0.226301],
                                                       [0.500347, 0.189445, 0.12449, 0.185718]], atol=2e-6)
    np.testing.assert_allclose(sb.forward_log_det_jacobian(x).numpy(), [-6.046881, -6.123164], atol=4e-6)
    np.testing.assert_allclose(sb.inverse(simp).numpy(), [[-0.287682, 0.182322, -1.386294],
                                                          [1.098612, -0.693147, -1.098612]], atol=2e-6)
    np.testing.assert_allclose(D.SoftmaxTransform().forward(x).numpy(), [[0.409076, 0.091277, 0.499647],
                                                                         [0.61361, 0.249475, 0.136915]], atol=2e-6)
    base = D.Normal(x, rt.ones_like(x))
    for transforms, value, event, want in [
            ([D.StickBreakingTransform()], simp, (4,), [0.368326, 3.102588]),
            ([D.IndependentTransform(D.ExpTransform(), 1)], rt.exp(x) * 1.1, (3,), [-2.656372, -3.956372]),
            ([D.ReshapeTransform((3,), (3, 1))], rt.unsqueeze(x, -1) * 0.5, (3, 1), [-2.979316, -2.933065])]:
        td = D.TransformedDistribution(base, transforms)
        assert td.batch_shape == (2,) and td.event_shape == event
        np.testing.assert_allclose(td.log_prob(value).numpy(), want, atol=4e-6)
        assert tuple(td.sample([5]).shape) == (5, 2) + event


class _VAE(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.enc, self.dec = rt.nn.Linear(4, 4), rt.nn.Linear(2, 4)

    def forward(self, x):
        h = self.enc(x)
        q = D.Normal(h[:, :2], rt.exp(h[:, 2:]))
        rec = self.dec(q.rsample())
        kl = D.kl_divergence(q, D.Normal(rt.zeros_like(h[:, :2]), rt.ones_like(h[:, :2])))
        return rt.mean(rt.sum((rec - x) ** 2, -1) + rt.sum(kl, -1))


def _train_vae(convert):
    rt.seed(0)
    net = _VAE()
    opt = rt.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())

    def step(x):
        loss = net(x)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    step = dy2st.to_static(step) if convert else step
    rng = np.random.default_rng(1)
    rt.seed(42)
    losses = [float(step(rt.to_tensor(rng.standard_normal((6, 4)).astype(np.float32)))) for _ in range(3)]
    return losses, [p.numpy() for p in net.parameters()]


def test_vae_training_converted_is_bitwise_eager():
    (le, pe), (lc, pc) = _train_vae(False), _train_vae(True)
    assert le == lc
    for a, b in zip(pe, pc):
        np.testing.assert_array_equal(a, b)


def test_student_t_and_chi2_match_paddle():
    # Paddle 3.3: StudentT(df=[3, 1.5], loc=LOC, scale=SCALE) log_prob([.3, .2]), entropy, variance and the
    # gradients of their sum; Chi2([3, 1.5]) log_prob([.3, 2]) and entropy
    df, scale = rt.to_tensor(np.array([3.0, 1.5], np.float32), stop_gradient=False), f32(*SCALE)
    scale.stop_gradient = False
    t = D.StudentT(df, f32(*LOC), scale)
    lp, ent = t.log_prob(f32(*V)), t.entropy()
    np.testing.assert_allclose(lp.numpy(), [-1.4181708, -2.0761175], atol=2e-6)
    np.testing.assert_allclose(ent.numpy(), [2.1789424, 1.7929838], atol=2e-6)
    np.testing.assert_allclose(t.variance.numpy(), [6.75, np.inf])
    (rt.sum(lp) + rt.sum(ent)).backward()
    np.testing.assert_allclose(df.grad.numpy(), [-0.09574789, -0.40187323], atol=2e-6)
    np.testing.assert_allclose(scale.grad.numpy(), [0.0157094, 2.3645322], atol=2e-6)
    assert tuple(t.sample([4]).shape) == (4, 2)
    c = D.Chi2(f32(3.0, 1.5))
    np.testing.assert_allclose(c.log_prob(f32(0.3, 2.0)).numpy(), [-1.6709249, -1.8964281], atol=2e-6)
    np.testing.assert_allclose(c.entropy().numpy(), [2.05412, 1.374963], atol=2e-6)


def test_continuous_bernoulli_matches_paddle():
    # Paddle 3.3: ContinuousBernoulli([.2, .5, .5005, .9]) log_prob([.3, .7, .1, .95]), entropy, mean, icdf
    # and KL to ContinuousBernoulli([.3, .6, .4, .1]) (the middle two inside the Taylor-expansion limits)
    d = D.ContinuousBernoulli(f32(0.2, 0.5, 0.5005, 0.9))
    v = f32(0.3, 0.7, 0.1, 0.95)
    for got, want in [(d.log_prob(v), [0.198428, 0.0, -0.0008, 0.795117]),
                      (d.entropy(), [-0.076414, 0.0, -0.0, -0.179631]),
                      (d.mean, [0.388014, 0.5, 0.500167, 0.66988]),
                      (d.icdf(v), [0.183866, 0.7, 0.1, 0.979309]),
                      (D.kl_divergence(d, D.ContinuousBernoulli(f32(0.3, 0.6, 0.4, 0.1))),
                       [0.011265, 0.006841, 0.006909, 0.746531])]:
        np.testing.assert_allclose(got.numpy(), want, atol=2e-6)
    assert tuple(D.ContinuousBernoulli(0.3).sample([2]).shape) == (2, 1)
    rt.seed(3)
    s = D.ContinuousBernoulli(f32(0.8)).sample([20000]).numpy()
    assert abs(s.mean() - D.ContinuousBernoulli(f32(0.8)).mean.item()) < 0.01 and 0 <= s.min() and s.max() <= 1
