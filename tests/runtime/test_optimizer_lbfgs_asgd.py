"""``optimizer.LBFGS`` (closure-driven, fixed steps or strong-Wolfe line search) and ``optimizer.ASGD``
against the parameters Paddle 3.3 reached on the same problem (data/paddle33_optimizers.npz: a Linear
layer, a squared error plus a quartic penalty, inputs built here the same way), and with a converted
model or training step against eager."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt

REF = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "paddle33_optimizers.npz"))


def _problem():
    rng = np.random.default_rng(0)
    lin = rt.nn.Linear(3, 2)
    lin.weight.set_value(rng.standard_normal((3, 2)).astype("float32"))
    lin.bias.set_value(rng.standard_normal(2).astype("float32"))
    x = rt.to_tensor(rng.standard_normal((8, 3)).astype("float32"))
    return lin, x, rt.to_tensor(rng.standard_normal((8, 2)).astype("float32"))


def _flat(lin):
    return np.concatenate([lin.weight.numpy().ravel(), lin.bias.numpy()])


LBFGS = {"fixed": (dict(learning_rate=1.0, max_iter=5), 2),
         "history2": (dict(learning_rate=0.5, max_iter=4, history_size=2), 3),
         "wolfe": (dict(learning_rate=1.0, max_iter=3, line_search_fn="strong_wolfe"), 3)}


def _lbfgs_run(kw, steps, model=None):
    lin, x, y = _problem()
    net = model(lin) if model else lin
    opt = rt.optimizer.LBFGS(parameters=lin.parameters(), **kw)

    def closure():
        opt.clear_grad()
        loss = ((net(x) - y) ** 2).mean() + (lin.weight ** 4).sum() * 0.1
        loss.backward()
        return loss

    traj, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        traj.append(_flat(lin))
    return np.array(traj), losses, opt


@pytest.mark.parametrize("key", sorted(LBFGS))
def test_lbfgs_follows_paddle(key):
    traj, losses, opt = _lbfgs_run(*LBFGS[key])
    # Paddle's steps in float32; its sums reduce in another order (a unit or two in the last place)
    np.testing.assert_allclose(traj, REF[f"lbfgs_{key}"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(losses, REF[f"lbfgs_{key}_loss"], rtol=1e-6)
    assert [opt.state["func_evals"], opt.state["n_iter"]] == REF[f"lbfgs_{key}_evals"].tolist()


def test_lbfgs_with_a_converted_model_matches_eager_and_refuses_minimize():
    want, _, _ = _lbfgs_run(*LBFGS["wolfe"])
    got, _, opt = _lbfgs_run(*LBFGS["wolfe"], model=dy2st.to_static)
    np.testing.assert_array_equal(got, want)
    assert set(opt.state_dict()["state"]) >= {"func_evals", "n_iter", "d", "old_yk"}
    with pytest.raises(NotImplementedError, match="step"):
        opt.minimize(rt.ones([1]))
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        rt.optimizer.LBFGS(parameters=opt._params, line_search_fn="backtracking")


ASGD = {"n3": dict(learning_rate=0.1, batch_num=3), "n1_decay": dict(learning_rate=0.05, batch_num=1, weight_decay=0.1)}


def _asgd_run(kw, converted=False):
    lin, x, y = _problem()
    opt = rt.optimizer.ASGD(parameters=lin.parameters(), **kw)

    def train(xb, yb):
        loss = ((lin(xb) - yb) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    step = dy2st.to_static(train) if converted else train
    traj = []
    for i in range(5):
        step(x[i:i + 4], y[i:i + 4])
        traj.append(_flat(lin))
    return np.array(traj), opt


@pytest.mark.parametrize("key", sorted(ASGD))
def test_asgd_matches_paddle_bitwise_eagerly_and_in_a_converted_step(key):
    traj, opt = _asgd_run(ASGD[key])
    np.testing.assert_array_equal(traj, REF[f"asgd_{key}"])
    np.testing.assert_array_equal(_asgd_run(ASGD[key], converted=True)[0], traj)
    state = opt.state_dict()
    w = opt._parameter_list[0].name
    assert state[f"{w}_y_0"].shape == [ASGD[key]["batch_num"], 3, 2] and state[f"{w}_m_0"].dtype == rt.int64
    again = rt.optimizer.ASGD(parameters=opt._parameter_list, **ASGD[key])
    again.set_state_dict(state)
    assert again._accumulators["m"][w].dtype == np.int64 and int(again._accumulators["m"][w][0]) == 5
    with pytest.raises(ValueError, match="batch_num"):
        rt.optimizer.ASGD(parameters=opt._parameter_list, batch_num=0)
