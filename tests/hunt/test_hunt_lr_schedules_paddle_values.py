"""The Paddle 2.x learning-rate schedules the Paddle train-step tests use (Noam, natural-exp, inverse-time,
polynomial, multiplicative, one-cycle, cyclic, cosine warm restarts, ReduceOnPlateau): the rates
Paddle gives step by step, and a converted train step (backward + opt.step() in the Program) that
follows the schedule bitwise like eager."""
import numpy as np
import pytest

import dy2st
import runtime as rt

L = rt.optimizer.lr

# (schedule, arguments, the rates Paddle 2.x returns at epochs 0, 1, 2, ...)
PADDLE_RATES = [
    ("NoamDecay", dict(d_model=2.0, warmup_steps=3, learning_rate=0.5),
     [0.0, 0.06804138174397718, 0.13608276348795437, 0.2041241452319315, 0.1767766952966369, 0.15811388300841897]),
    ("NaturalExpDecay", dict(learning_rate=0.5, gamma=0.1),
     [0.5, 0.45241870901797976, 0.4093653765389909, 0.37040911034085894]),
    ("InverseTimeDecay", dict(learning_rate=0.5, gamma=0.1),
     [0.5, 0.45454545454545453, 0.4166666666666667, 0.3846153846153846]),
    ("PolynomialDecay", dict(learning_rate=0.5, decay_steps=4, cycle=True, power=2.0, end_lr=0.01),
     [0.5, 0.285625, 0.1325, 0.040625, 0.01, 0.07890625, 0.040625, 0.01765625, 0.01, 0.040625]),
    ("MultiplicativeDecay", dict(learning_rate=0.5, lr_lambda=lambda e: 0.9 + e * 0.01),
     [0.5, 0.455, 0.4186, 0.38929800000000003]),
    ("OneCycleLR", dict(max_learning_rate=1.0, total_steps=10, three_phase=True, anneal_strategy="linear"),
     [0.04, 0.52, 1.0, 0.52, 0.040000000000000036, 0.03202, 0.024040000000000002, 0.01606, 0.008080000000000004,
      0.00010000000000000286]),
    ("OneCycleLR", dict(max_learning_rate=1.0, total_steps=6),
     [0.040000000000000036, 0.9944159715712529, 0.8117637264392737, 0.4626886897114672, 0.13356071667867842, 0.0001]),
    ("CyclicLR", dict(base_learning_rate=0.1, max_learning_rate=1.0, step_size_up=2, step_size_down=1, mode="triangular2"),
     [0.1, 0.5499999999999999, 0.9999999999999998, 0.1, 0.32499999999999984, 0.5499999999999996, 0.1,
      0.21250000000000008]),
    ("CosineAnnealingWarmRestarts", dict(learning_rate=0.5, T_0=2, T_mult=2, eta_min=0.01),
     [0.5, 0.255, 0.5, 0.4282411613907041, 0.255, 0.08175883860929586, 0.5, 0.48135048546526527]),
]


@pytest.mark.parametrize("name,kwargs,rates", PADDLE_RATES, ids=[f"{r[0]}-{i}" for i, r in enumerate(PADDLE_RATES)])
def test_rates_are_paddles(name, kwargs, rates):
    sched = getattr(L, name)(**kwargs)
    got = []
    for _ in rates:
        got.append(sched())
        sched.step()
    np.testing.assert_allclose(got, rates, rtol=1e-15, atol=1e-17)


def test_reduce_on_plateau_is_paddles():
    sched = L.ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=1, cooldown=1)
    got = []
    for m in [3.0, 2.0, 2.5, 2.4, 2.2, 2.3, 2.6, 1.0, 1.5, 1.4, 1.3]:
        sched.step(rt.to_tensor(m))
        got.append(sched())
    assert got == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25]
    with pytest.raises(ValueError, match="factor"):
        L.ReduceOnPlateau(learning_rate=1.0, factor=2.0)


def _train_step(net, x, opt):
    loss = net(x).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


@pytest.mark.parametrize("make", [lambda: L.CyclicLR(0.1, 0.5, step_size_up=1),
                                  lambda: L.ReduceOnPlateau(learning_rate=0.5, factor=0.5, patience=0)])
def test_converted_train_step_follows_the_schedule(make):
    x = rt.to_tensor(np.random.RandomState(0).randn(8, 4).astype("float32"))
    runs = []
    for step in (_train_step, dy2st.to_static(_train_step, full_graph=True)):
        rt.seed(5)
        net, sched = rt.nn.Linear(4, 3), make()
        opt = rt.optimizer.SGD(learning_rate=sched, parameters=net.parameters())
        out = []
        for _ in range(4):
            loss = step(net, x, opt)
            sched.step(loss) if isinstance(sched, L.ReduceOnPlateau) else sched.step()
            out += [loss.numpy(), sched()] + [p.numpy().copy() for p in net.parameters()]
        runs.append(out)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
