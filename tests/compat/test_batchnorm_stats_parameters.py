"""BatchNorm's running statistics are parameters that take no gradient, as in Paddle 2.x/3.x
(``create_parameter(attr=ParamAttr(trainable=False))``, ``stop_gradient=True``): ported code counts
``model.parameters()``, hands them to optimizers (which skip them: no update, no decay, no
accumulators) and loads Paddle state dicts under ``_mean``/``_variance``. The statistics still move
in place at every train-mode forward, eagerly, converted and in a converted training step, and
a saved model lists them among its parameters. (Values recorded from PaddlePaddle 3.3.)"""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

_BNS = [(nn.BatchNorm1D, (5, 3)), (nn.BatchNorm2D, (5, 3, 2, 2)), (nn.BatchNorm3D, (5, 3, 2, 2, 2)),
        (nn.BatchNorm, (5, 3, 2, 2)), (nn.SyncBatchNorm, (5, 3, 2, 2))]


@pytest.mark.parametrize("cls, shape", _BNS)
def test_statistics_are_non_trainable_parameters_as_in_paddle(cls, shape):
    bn = cls(3)
    named = [(n, p.stop_gradient, p.trainable, p.persistable) for n, p in bn.named_parameters()]
    assert named == [("weight", False, True, True), ("bias", False, True, True),
                     ("_mean", True, False, True), ("_variance", True, False, True)]  # PaddlePaddle 3.3
    assert bn.buffers() == [] and list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert isinstance(bn._mean, rt.Parameter) and bn._mean.name.endswith(".w_1") and bn._variance.name.endswith(".w_2")
    np.testing.assert_array_equal(bn._mean.numpy(), np.zeros(3, "float32"))
    np.testing.assert_array_equal(bn._variance.numpy(), np.ones(3, "float32"))
    x = rt.to_tensor(np.random.default_rng(0).standard_normal(shape).astype("float32"), stop_gradient=False)
    bn(x).sum().backward()
    assert bn._mean.grad is None and bn._variance.grad is None and bn.weight.grad is not None
    assert not np.allclose(bn._mean.numpy(), 0.0)  # moved in place by the train-mode forward


def test_names_and_counts_follow_paddle():
    plain = nn.BatchNorm2D(4, weight_attr=False, bias_attr=False)
    assert [n for n, _ in plain.named_parameters()] == ["_mean", "_variance"]
    assert plain._mean.name.endswith(".w_0") and plain._variance.name.endswith(".w_1")
    named = nn.BatchNorm1D(4, name="bn")
    assert (named._mean.name, named._variance.name) == ("bn_mean", "bn_variance")
    legacy = nn.BatchNorm(4, moving_mean_name="mm", moving_variance_name="mv")
    assert (legacy._mean.name, legacy._variance.name) == ("mm", "mv")
    m = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1D(4))
    assert len(m.parameters()) == 6 and sum(int(np.prod(p.shape)) for p in m.parameters()) == 36  # Paddle's
    assert sum(int(np.prod(p.shape)) for p in m.parameters() if p.trainable) == 28


def test_a_paddle_state_dict_loads_the_statistics():
    m = nn.Sequential(nn.Conv2D(2, 3, 3), nn.BatchNorm2D(3))
    sd = {k: np.full(v.shape, i + 0.5, "float32") for i, (k, v) in enumerate(m.state_dict().items())}
    assert list(sd) == ["0.weight", "0.bias", "1.weight", "1.bias", "1._mean", "1._variance"]
    m.set_state_dict(sd, strict=True)
    np.testing.assert_array_equal(m[1]._mean.numpy(), np.full(3, 4.5, "float32"))
    np.testing.assert_array_equal(m[1]._variance.numpy(), np.full(3, 5.5, "float32"))


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1D(6)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(F.relu(self.bn(self.fc(x))))


_OPTS = [lambda ps: rt.optimizer.AdamW(0.01, parameters=ps, weight_decay=0.1),
         lambda ps: rt.optimizer.Momentum(0.05, parameters=ps, weight_decay=0.01),
         lambda ps: rt.optimizer.SGD(0.05, parameters=ps)]


def _train(opt_of, how):
    """Three steps from the same start: eagerly, with the forward converted, or the whole step."""
    rt.seed(1)
    net = _Net()
    opt = opt_of(net.parameters())
    model = dy2st.to_static(net) if how == "forward" else net

    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    def checked_step(x, y):  # eagerly: the step leaves the statistics as the forward wrote them
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        stats = [net.bn._mean.numpy().copy(), net.bn._variance.numpy().copy()]
        opt.step()
        opt.clear_grad()
        np.testing.assert_array_equal(net.bn._mean.numpy(), stats[0])
        np.testing.assert_array_equal(net.bn._variance.numpy(), stats[1])
        return loss
    step = dy2st.to_static(step) if how == "step" else checked_step if how == "eager" else step
    rng = np.random.default_rng(2)
    losses = []
    for _ in range(3):
        x = rt.to_tensor(rng.standard_normal((8, 4)).astype("float32"))
        y = rt.to_tensor(rng.integers(0, 3, (8,)))
        mean_before = net.bn._mean.numpy().copy()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "had a gradient earlier" warning for the statistics
            losses.append(float(step(x, y)))
        assert not np.array_equal(net.bn._mean.numpy(), mean_before)  # the forward moved them
    return losses, [p.numpy() for p in net.parameters()], opt


@pytest.mark.parametrize("opt_of", _OPTS, ids=["adamw", "momentum", "sgd"])
def test_optimizers_skip_the_statistics_eagerly_and_converted(opt_of):
    want, want_params, opt = _train(opt_of, "eager")
    # the statistics are what the forwards left: the optimizer neither stepped nor decayed them, and
    # keeps no state for them (Paddle's state_dict keys)
    keys = [k for k in opt.state_dict() if k.startswith("batch_norm")]
    assert not any(k.split(".")[1].startswith(("w_1_", "w_2_")) for k in keys)
    assert any(k.split(".")[1].startswith("w_0_") for k in keys) or isinstance(opt, rt.optimizer.SGD)
    for how in ("forward", "step"):
        got, got_params, _ = _train(opt_of, how)
        assert got == want, how
        for a, b in zip(want_params, got_params):
            np.testing.assert_array_equal(b, a, err_msg=how)


def test_a_saved_model_lists_the_statistics_among_its_parameters(tmp_path):
    rt.seed(3)
    net = _Net()
    net.eval()
    path = str(tmp_path / "net")
    dy2st.save(net, path, input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
    loaded = dy2st.load(path)
    named = {n: p for n, p in loaded.named_parameters()}
    assert list(named) == [n for n, _ in net.named_parameters()] and loaded.buffers() == []
    assert named["bn._mean"].stop_gradient and not named["bn.weight"].stop_gradient
    x = rt.to_tensor(np.random.default_rng(4).standard_normal((5, 4)).astype("float32"))
    np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())
    # fine-tuning: the train-mode forward moves the statistics, the optimizer leaves them alone
    loaded.train()
    net.train()
    opt = rt.optimizer.AdamW(0.01, parameters=loaded.parameters(), weight_decay=0.1)
    eager_opt = rt.optimizer.AdamW(0.01, parameters=net.parameters(), weight_decay=0.1)
    for model, o in ((loaded, opt), (net, eager_opt)):
        model(x).sum().backward()
        o.step()
        o.clear_grad()
    for (n, a), (_, b) in zip(net.named_parameters(), loaded.named_parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-7, err_msg=n)
    assert not np.allclose(named["bn._mean"].numpy(), 0.0)


def test_a_frozen_parameter_is_skipped_without_a_warning_as_in_paddle():
    rt.seed(0)
    net = _Net()
    opt = rt.optimizer.Momentum(0.1, parameters=net.parameters())
    x = rt.to_tensor(np.ones((4, 4), "float32"))
    net(x).sum().backward()
    opt.step()
    opt.clear_grad()
    net.fc.weight.stop_gradient = True
    frozen = net.fc.weight.numpy().copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net(x).sum().backward()
        opt.step()
    np.testing.assert_array_equal(net.fc.weight.numpy(), frozen)


def test_model_average_leaves_the_statistics_alone():
    # it averages what it accumulated; the statistics, never accumulated, would be 0 / 0 (Paddle's nan)
    rt.seed(0)
    net = _Net()
    avg = rt.incubate.ModelAverage(0.5, parameters=net.parameters(), min_average_window=1, max_average_window=4)
    x = rt.to_tensor(np.ones((4, 4), "float32"))
    net(x).sum().backward()
    avg.step()
    stats = net.bn._mean.numpy().copy()
    with avg.apply():
        np.testing.assert_array_equal(net.bn._mean.numpy(), stats)
        assert np.isfinite(net.fc.weight.numpy()).all()
    np.testing.assert_array_equal(net.bn._mean.numpy(), stats)
