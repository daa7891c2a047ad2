"""Paddle's test_reinforcement_learning (REINFORCE on CartPole), rewritten and shrunk with a small
deterministic environment in place of gym: a converted policy with functional dropout is called
once per step on a single state, the log-probabilities it returns are kept in a Python list on the
Layer, and each episode ends with the discounted, normalised returns weighting them in one loss
that back-propagates through every call of the cached Program (Adamax). Converted equals eager
bitwise: the sampled actions, the per-step losses and the parameters."""
import math

import numpy as np

import dy2st
import runtime as rt
from runtime import nn

GAMMA = 0.99


class Policy(nn.Layer):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.affine2 = nn.Linear(16, 2)
        self.dropout_ratio = 0.6
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = rt.reshape(x, shape=[1, 4])
        x = nn.functional.relu(nn.functional.dropout(self.affine1(x), self.dropout_ratio))
        return nn.functional.softmax(self.affine2(x), axis=1)


class Balance:
    """CartPole's shape of problem: push left or right, fall after a while or past a bound."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.state, self.t = self.rng.uniform(-0.05, 0.05, 4), 0
        return self.state

    def step(self, action):
        x, v, a, w = self.state
        force = 1.0 if action == 1 else -1.0
        w = w + 0.05 * (9.8 * math.sin(a) - force * math.cos(a))
        v = v + 0.02 * force
        self.state = np.array([x + 0.02 * v, v, a + 0.02 * w, w])
        self.t += 1
        return self.state, 1.0, abs(self.state[2]) > 0.2 or self.t >= 12


def _run(convert, episodes=3):
    rt.seed(2020)
    env, draws = Balance(2020), np.random.RandomState(2020)
    model = Policy()
    policy = dy2st.to_static(model) if convert else model
    opt = rt.optimizer.Adamax(learning_rate=1e-2, parameters=model.parameters())
    eps = np.finfo(np.float32).eps.item()
    losses, actions = [], []
    for _ in range(episodes):
        state = env.reset()
        done = False
        while not done:
            probs = policy(rt.to_tensor(np.array(state, "float32")))
            p = probs.numpy()[0]
            action = 0 if draws.random_sample() < p[0] else 1
            mask = rt.to_tensor(np.array([[1.0 - action, float(action)]], "float32"))
            log_prob = rt.sum(rt.multiply(rt.log(probs), mask), axis=-1)
            model.saved_log_probs.append(log_prob)
            state, reward, done = env.step(action)
            model.rewards.append(reward)
            losses.append(float(log_prob))
            actions.append(action)
        returns, r = [], 0.0
        for reward in model.rewards[::-1]:
            r = reward + GAMMA * r
            returns.insert(0, r)
        returns = np.array(returns, "float32")
        returns = (returns - returns.mean()) / (returns.std() + eps)
        loss = rt.sum(rt.concat([rt.multiply(rt.to_tensor(np.full([1], -g, "float32")), lp)
                                 for lp, g in zip(model.saved_log_probs, returns)]))
        loss.backward()
        opt.minimize(loss)
        model.clear_gradients()
        del model.rewards[:]
        del model.saved_log_probs[:]
    return actions, losses, [v.numpy() for v in model.state_dict().values()]


def test_episodes_match_eager():
    eager = _run(False)
    static = _run(True)
    assert static[0] == eager[0]
    assert static[1] == eager[1]
    for a, b in zip(eager[2], static[2]):
        np.testing.assert_array_equal(b, a)
