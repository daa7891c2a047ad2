"""rt.optimizer: update formulas, training an MLP to low loss, state_dict round trip, lr schedulers, clipping."""
import numpy as np
import pytest

import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.optimizer import lr as lr_sched


def _param(values):
    return rt.Parameter(np.asarray(values, dtype=np.float32), name=f"p{id(values)}")


def _set_grad(p, g):
    p.grad = rt.Tensor(np.asarray(g, dtype=np.float32))


def test_sgd_and_momentum_formulas():
    p = _param([1.0, 2.0])
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=[p], weight_decay=0.5)
    _set_grad(p, [1.0, -1.0])
    opt.step()
    np.testing.assert_allclose(p.numpy(), [1 - 0.1 * 1.5, 2 - 0.1 * 0.0], rtol=1e-6)

    q = _param([1.0])
    mom = rt.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[q])
    for _ in range(2):
        _set_grad(q, [1.0])
        mom.step()
    np.testing.assert_allclose(q.numpy(), [1 - 0.1 * 1 - 0.1 * 1.9], rtol=1e-6)
    r = _param([1.0])
    nes = rt.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[r], use_nesterov=True)
    _set_grad(r, [1.0])
    nes.step()
    np.testing.assert_allclose(r.numpy(), [1 - 0.1 * (1 + 0.9)], rtol=1e-6)


def test_adam_and_adamw_formulas():
    g = np.array([0.5, -2.0], np.float32)
    p = _param([1.0, 1.0])
    adam = rt.optimizer.Adam(learning_rate=0.01, parameters=[p])
    w = np.ones(2)
    m = v = np.zeros(2)
    for t in range(1, 4):
        _set_grad(p, g)
        adam.step()
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        lr_t = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        w = w - lr_t * m / (np.sqrt(v) + 1e-8 * np.sqrt(1 - 0.999 ** t))
    np.testing.assert_allclose(p.numpy(), w, rtol=1e-5)

    q = _param([1.0, 1.0])
    adamw = rt.optimizer.AdamW(learning_rate=0.01, parameters=[q], weight_decay=0.1)
    _set_grad(q, g)
    adamw.step()
    w1 = 1 * (1 - 0.01 * 0.1) - 0.01 * np.sign(g)  # first Adam step moves by ~lr
    np.testing.assert_allclose(q.numpy(), w1, rtol=1e-5)


def test_adam_bitwise_equals_its_numpy_formula_across_a_beta_change(dtype="float32"):
    """The update's cached beta scalars give the formula's exact bits, also after beta1 changes."""
    rng = np.random.default_rng(0)
    ps = [_param(rng.normal(size=n).astype(dtype)) for n in (3, 5)]
    adam = rt.optimizer.Adam(learning_rate=0.01, parameters=ps)
    dt = np.dtype(dtype)
    ws = [p.numpy().copy() for p in ps]
    ms, vs = [np.zeros_like(w) for w in ws], [np.zeros_like(w) for w in ws]
    b1p = b2p = None
    for t in range(4):
        if t == 2:
            adam._beta1 = 0.8  # the scalars are made again for the new value
        b1, b2 = np.asarray(adam._beta1, dt), np.asarray(adam._beta2, dt)
        b1p = np.asarray([0.9], dt) if b1p is None else b1p
        b2p = np.asarray([0.999], dt) if b2p is None else b2p
        gs = [rng.normal(size=w.shape).astype(dtype) for w in ws]
        for p, g in zip(ps, gs):
            _set_grad(p, g)
        adam.step()
        corr2 = float(np.sqrt(1 - b2p[0]))
        lr_t = np.asarray(0.01 * corr2 / (1 - b1p[0]), dt)
        for i, g in enumerate(gs):
            ms[i] = b1 * ms[i] + (1 - b1) * g
            vs[i] = b2 * vs[i] + (1 - b2) * np.square(g)
            ws[i] = ws[i] - lr_t * ms[i] / (np.sqrt(vs[i]) + np.asarray(1e-8 * corr2, dt))
        b1p, b2p = b1p * b1, b2p * b2
        for p, w in zip(ps, ws):
            np.testing.assert_array_equal(p.numpy(), w)


def test_params_without_grad_or_trainable_are_skipped():
    a, b = _param([1.0]), _param([2.0])
    b.stop_gradient = True
    _set_grad(b, [1.0])
    opt = rt.optimizer.Adam(parameters=[a, b])
    opt.step()
    assert a.numpy()[0] == 1.0 and b.numpy()[0] == 2.0
    _set_grad(a, [1.0])
    opt.clear_grad()
    assert a.grad is None
    with pytest.raises(ValueError, match="parameters"):
        rt.optimizer.SGD(learning_rate=0.1)


def _xor_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 2)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)
    return rt.to_tensor(x), rt.to_tensor(y)


@pytest.mark.parametrize("make_opt,steps", [
    (lambda ps: rt.optimizer.SGD(learning_rate=0.5, parameters=ps), 300),
    (lambda ps: rt.optimizer.Adam(learning_rate=0.02, parameters=ps), 200),
    (lambda ps: rt.optimizer.Momentum(learning_rate=0.1, parameters=ps), 200),
    (lambda ps: rt.optimizer.AdamW(learning_rate=0.02, parameters=ps), 200),
])
def test_mlp_reaches_low_loss(make_opt, steps):
    rt.seed(0)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = make_opt(model.parameters())
    x, y = _xor_data()
    first = None
    for _ in range(steps):
        loss = F.cross_entropy(model(x), y)
        first = float(loss) if first is None else first
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float(loss) < 0.1 < first
    acc = (model(x).numpy().argmax(1) == y.numpy()).mean()
    assert acc > 0.97


def test_regression_with_mse_and_scheduler():
    rt.seed(0)
    model = nn.Linear(3, 1)
    sched = lr_sched.StepDecay(0.1, step_size=50, gamma=0.5)
    opt = rt.optimizer.SGD(learning_rate=sched, parameters=model.parameters())
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    for _ in range(150):
        loss = F.mse_loss(model(rt.to_tensor(xs)), rt.to_tensor(ys))
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()
    assert float(loss) < 1e-3
    assert opt.get_lr() == pytest.approx(0.1 * 0.5 ** 3)


def test_state_dict_round_trip_continues_identically(tmp_path):
    def make():
        rt.seed(3)
        model = nn.Linear(2, 2)
        return model, rt.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())

    x = rt.to_tensor(np.random.default_rng(0).standard_normal((8, 2)).astype(np.float32))

    def train(model, opt, n):
        for _ in range(n):
            rt.mean(model(x) ** 2).backward()
            opt.step()
            opt.clear_grad()

    m1, o1 = make()
    train(m1, o1, 3)
    sd = o1.state_dict()
    assert f"{m1.weight.name}_moment1_0" in sd and f"{m1.weight.name}_beta2_pow_acc_0" in sd
    assert sd["global_step"] == 3
    rt.save(sd, str(tmp_path / "o.pdopt"))
    rt.save(m1.state_dict(), str(tmp_path / "m.pdparams"))
    train(m1, o1, 2)

    m2 = nn.Linear(2, 2)
    o2 = rt.optimizer.Adam(learning_rate=0.05, parameters=m2.parameters())
    m2.set_state_dict(rt.load(str(tmp_path / "m.pdparams")))
    # a new model has new unique parameter names: map the saved accumulators onto them
    loaded = rt.load(str(tmp_path / "o.pdopt"))
    renamed = {k.replace(m1.weight.name, m2.weight.name).replace(m1.bias.name, m2.bias.name): v
               for k, v in loaded.items()}
    o2.set_state_dict(renamed)
    train(m2, o2, 2)
    np.testing.assert_allclose(m2.weight.numpy(), m1.weight.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        o2.set_state_dict({f"{m2.weight.name}_moment1_0": np.zeros([5])})


def test_grad_clip_by_global_norm():
    p = _param([0.0, 0.0])
    opt = rt.optimizer.SGD(learning_rate=1.0, parameters=[p], grad_clip=nn.ClipGradByGlobalNorm(1.0))
    _set_grad(p, [3.0, 4.0])
    opt.step()
    np.testing.assert_allclose(p.numpy(), [-0.6, -0.8], rtol=1e-6)


def test_lr_schedulers():
    s = lr_sched.CosineAnnealingDecay(1.0, T_max=10)
    for _ in range(10):
        s.step()
    assert s() == pytest.approx(0.0, abs=1e-12)
    w = lr_sched.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5)
    assert w() == 0.0
    w.step()
    assert w() == pytest.approx(0.125)
    p = lr_sched.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1])
    vals = []
    for _ in range(5):
        vals.append(p())
        p.step()
    assert vals == [1.0, 1.0, 0.5, 0.5, 0.1]
    opt = rt.optimizer.SGD(learning_rate=s, parameters=[_param([1.0])])
    state = opt.state_dict()
    assert state["LR_Scheduler"]["last_epoch"] == 10
    with pytest.raises(RuntimeError):
        opt.set_lr(0.1)
