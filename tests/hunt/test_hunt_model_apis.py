"""Paddle 2.x names that the dy2st model tests (ResNet, SE-ResNeXt, PTB LM, MNIST) call:
``nn.BatchNorm(act=...)``, ``paddle.static.accuracy``, ``F.softmax_with_cross_entropy`` and
``F.square_error_cost``, eagerly and converted, with gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


class _Net(rt.nn.Layer):
    def __init__(self, act):
        super().__init__()
        self.conv = rt.nn.Conv2D(2, 5, 3, padding=1)
        self.bn = rt.nn.BatchNorm(5, act=act)

    def forward(self, x, label):
        y = self.bn(self.conv(x))
        logits = rt.mean(y, axis=[2, 3])
        loss = F.softmax_with_cross_entropy(logits=logits, label=label)
        acc = rt.static.accuracy(input=F.softmax(logits), label=label, k=2)
        return rt.mean(loss) + rt.mean(F.square_error_cost(logits, rt.zeros_like(logits))), acc, loss


def _run(convert, act, batches):
    rt.seed(0)
    net = _Net(act)
    if convert:
        net = dy2st.to_static(net)
    out = []
    for x, y in batches:
        loss, acc, each = net(rt.to_tensor(x), rt.to_tensor(y))
        loss.backward()
        out += [loss.numpy(), acc.numpy(), each.numpy()] + [p.grad.numpy() for p in net.parameters()]
        out += [net.bn._mean.numpy().copy()]
        net.clear_gradients()
    return out


@pytest.mark.parametrize("act", [None, "relu", "sigmoid", "tanh"])
def test_batchnorm_act_and_losses_converted_match_eager(act):
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((n, 2, 4, 4)).astype("float32"), rng.integers(0, 5, (n, 1)))
               for n in (3, 3, 4)]
    want, got = _run(False, act, batches), _run(True, act, batches)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(want, got))


def test_batchnorm_act_applies_the_activation():
    x = rt.to_tensor(np.random.default_rng(1).standard_normal((4, 3, 2, 2)).astype("float32"))
    plain, relu = rt.nn.BatchNorm(3), rt.nn.BatchNorm(3, act="relu")
    np.testing.assert_array_equal(relu(x).numpy(), np.maximum(plain(x).numpy(), 0))
    with pytest.raises(ValueError, match="unknown activation"):
        rt.nn.BatchNorm(3, act="no_such_act")


def test_softmax_with_cross_entropy_keeps_the_class_dim():
    x = np.random.default_rng(2).standard_normal((2, 3, 5)).astype("float32")
    y = np.array([[[1], [4], [0]], [[2], [2], [3]]], "int64")
    loss, sm = F.softmax_with_cross_entropy(rt.to_tensor(x), rt.to_tensor(y), return_softmax=True)
    logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    np.testing.assert_allclose(loss.numpy(), -np.take_along_axis(logp, y, -1), rtol=1e-6)
    np.testing.assert_allclose(sm.numpy(), np.exp(logp), rtol=1e-6)
    assert loss.shape == [2, 3, 1]
