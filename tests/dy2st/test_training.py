"""The seed promise: the training loop is the same code with and without `@to_static`,
and the losses and gradients match eager mode.

Each model is built twice from one seed; the very same `fit` function trains the eager
copy and the converted copy; per-step losses must agree to 1e-5, and the converted
model must really have run a Program with its control flow as graph ops.
"""
import functools

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from step_helpers import MLP


def op_types(program):
    return [op.type for block in program.blocks for op in block.ops]


def fit(model, batches, opt_name, lr, loss_fn):
    """The one training loop, shared by both runs."""
    if opt_name == "sgd":
        opt = rt.optimizer.SGD(learning_rate=lr, parameters=model.parameters())
    else:
        opt = rt.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    losses = []
    for x, y in batches:
        loss = loss_fn(model(rt.to_tensor(x)), rt.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def twin(cls, seed=0):
    rt.seed(seed)
    eager = cls()
    rt.seed(seed)
    static = dy2st.to_static(cls())
    for (n, a), (_, b) in zip(eager.named_parameters(), static.named_parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=n)
    return eager, static


def compare(cls, batches, opt_name, lr, loss_fn, graph_ops=()):
    eager, static = twin(cls)
    le = fit(eager, batches, opt_name, lr, loss_fn)
    ls = fit(static, batches, opt_name, lr, loss_fn)
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-5)
    assert le[-1] < le[0]  # it did learn something
    for (n, a), (_, b) in zip(eager.named_parameters(), static.named_parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)
    sf = static.forward
    assert isinstance(sf, dy2st.StaticFunction)
    assert len(sf.program_cache) == 1
    types = op_types(sf.concrete_program.main_program)
    for op in graph_ops:
        assert op in types, f"no {op!r} op in the Program: {types}"
    return le, ls


def classification_batches(n_batches, batch, dim, classes, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((classes, dim)).astype("float32") * 2
    out = []
    for _ in range(n_batches):
        y = rng.integers(0, classes, batch)
        x = centers[y] + rng.standard_normal((batch, dim)).astype("float32") * 0.5
        out.append((x.astype("float32"), y.astype("int64")))
    return out


class IfNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        h = self.fc1(x)
        if h.mean() > 0:
            h = F.relu(h) * 1.5
        else:
            h = rt.tanh(h) - 0.25
        return self.fc2(h)


class DropIfNet(nn.Layer):
    """Dropout only in a tensor-dependent branch: the backward replays that branch."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if x.mean() > 0:
            h = self.drop(h)
        return self.fc2(h)


class WhileNet(nn.Layer):
    """Residual refinement until the update is small (a tensor `while`), then a tensor-range `for`."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.refine = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        h = rt.tanh(self.fc1(x))
        step = 0
        while rt.abs(h).mean() > 0.2 and step < 4:
            h = h * 0.5 + 0.1 * rt.tanh(self.refine(h))
            step += 1
        n = (rt.abs(x).mean() * 2).astype("int64") + 1
        for i in range(n):
            h = h + 0.05 * rt.tanh(self.refine(h))
        return self.fc2(h)


class SmallCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2D(2)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        h = self.pool(F.relu(self.conv(x)))
        return self.fc(h.reshape([h.shape[0], -1]))


@pytest.mark.parametrize("opt_name, lr", [("sgd", 0.1), ("adam", 0.01)])
def test_mlp_losses_match_eager(opt_name, lr):
    compare(functools.partial(MLP, 8, 16, 3), classification_batches(6, 16, 8, 3), opt_name, lr, F.cross_entropy)


@pytest.mark.parametrize("opt_name, lr", [("sgd", 0.1), ("adam", 0.01)])
def test_tensor_if_in_forward_losses_match_eager(opt_name, lr):
    compare(IfNet, classification_batches(6, 16, 8, 3, seed=1), opt_name, lr, F.cross_entropy, ("cond",))


@pytest.mark.parametrize("opt_name, lr", [("sgd", 0.1), ("adam", 0.01)])
def test_tensor_while_and_for_in_forward_losses_match_eager(opt_name, lr):
    le, _ = compare(WhileNet, classification_batches(6, 16, 8, 3, seed=2), opt_name, lr, F.cross_entropy,
                    ("while",))


def test_dropout_in_tensor_if_trains_like_eager():
    """The gradient's replay of the branch reuses the forward's dropout mask (and leaves the
    random stream where eager leaves it), so seeded SGD runs give eager's losses."""
    batches = classification_batches(8, 16, 8, 3, seed=6)
    # both ways through the `if`: shift half the batches to a negative mean
    batches = [(x + (1.5 if i % 2 == 0 else -1.5) - x.mean(), y) for i, (x, y) in enumerate(batches)]
    assert {bool(x.mean() > 0) for x, _ in batches} == {True, False}
    eager, static = twin(DropIfNet, seed=7)
    rt.seed(123)
    le = fit(eager, batches, "sgd", 0.1, F.cross_entropy)
    rt.seed(123)
    ls = fit(static, batches, "sgd", 0.1, F.cross_entropy)
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-5)
    for (n, a), (_, b) in zip(eager.named_parameters(), static.named_parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)
    types = op_types(static.forward.concrete_program.main_program)
    assert "cond" in types and "dropout" in types


def test_while_net_takes_different_trip_counts():
    """The same Program serves inputs for which the loops run different numbers of times."""
    eager, static = twin(WhileNet)
    for scale in (0.05, 1.0, 4.0):
        x = rt.to_tensor(np.random.default_rng(3).standard_normal((4, 8)).astype("float32") * scale)
        np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)
    assert len(static.forward.program_cache) == 1


@pytest.mark.parametrize("opt_name, lr", [("sgd", 0.05), ("adam", 0.01)])
def test_small_cnn_mnist_style_losses_match_eager(opt_name, lr):
    rng = np.random.default_rng(4)
    protos = rng.random((10, 1, 8, 8)).astype("float32")
    batches = []
    for _ in range(4):
        y = rng.integers(0, 10, 8)
        x = protos[y] + rng.standard_normal((8, 1, 8, 8)).astype("float32") * 0.1
        batches.append((x.astype("float32"), y.astype("int64")))
    compare(SmallCNN, batches, opt_name, lr, F.cross_entropy)


def test_mse_regression_losses_match_eager():
    rng = np.random.default_rng(5)
    batch = (rng.standard_normal((8, 8)).astype("float32"), rng.standard_normal((8, 3)).astype("float32"))
    batches = [batch] * 5
    compare(IfNet, batches, "adam", 0.01, F.mse_loss, ("cond",))


# -- gradients: parameters and inputs, against eager and finite differences ----------------

class TinyCondWhile(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            h = h * h
        else:
            h = h * 3.0
        while rt.abs(h).sum() > 1.0:
            h = h * 0.5
        return h


def _grads(model, x_np):
    x = rt.to_tensor(x_np, stop_gradient=False)
    loss = (model(x) * rt.to_tensor(np.array([1.0, -2.0], "float32"))).sum()
    loss.backward()
    grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters()}
    xg = x.grad.numpy().copy()
    for p in model.parameters():
        p.clear_grad()
    return float(loss), grads, xg


def _loss64(model, x_np):
    with rt.no_grad():
        return float((model(rt.to_tensor(x_np)) * rt.to_tensor(np.array([1.0, -2.0], "float32"))).sum())


@pytest.mark.parametrize("scale", [1.0, -1.0, 6.0])
def test_gradients_match_eager_and_finite_differences(scale):
    eager, static = twin(TinyCondWhile, seed=9)
    x_np = (np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], "float32") * scale).astype("float32")
    le, ge, xe = _grads(eager, x_np)
    ls, gs, xs = _grads(static, x_np)
    assert abs(le - ls) < 1e-5
    for n in ge:
        np.testing.assert_allclose(gs[n], ge[n], rtol=1e-5, atol=1e-6, err_msg=n)
    np.testing.assert_allclose(xs, xe, rtol=1e-5, atol=1e-6)
    types = op_types(static.forward.concrete_program.main_program)
    assert "cond" in types and "while" in types

    # central finite differences on the input (float32 model, so a loose tolerance)
    eps = 1e-3
    fd = np.zeros_like(x_np)
    for idx in np.ndindex(*x_np.shape):
        up, down = x_np.copy(), x_np.copy()
        up[idx] += eps
        down[idx] -= eps
        fd[idx] = (_loss64(static, up) - _loss64(static, down)) / (2 * eps)
    np.testing.assert_allclose(xs, fd, rtol=2e-2, atol=2e-3)
    # ...and on one weight entry
    w = static.fc.weight
    w0 = w.numpy().copy()
    fdw = np.zeros_like(w0)
    for idx in np.ndindex(*w0.shape):
        for sign in (1, -1):
            wv = w0.copy()
            wv[idx] += sign * eps
            w._value = wv  # no set_value in runtime: write the parameter in place
            fdw[idx] += sign * _loss64(static, x_np) / (2 * eps)
    w._value = w0
    np.testing.assert_allclose(gs["fc.weight"], fdw, rtol=2e-2, atol=2e-3)
