"""Scenarios of Paddle's test_grad, rewritten: `rt.grad` inside a converted forward (of `x * x`, of
ten Linear layers with `create_graph=True`, under a tensor `if`), a forward with `rt.no_grad()`,
outputs one of which is an input passed through. Converted equals eager, and so does training the
converted layer with a clipped SGD (losses and weights bitwise); it then saves for inference and
for training, and the loaded layer serves the same results."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt

from .helpers import same


class SquareGrad(rt.nn.Layer):
    def forward(self, x):
        x.stop_gradient = False
        y = x * x
        return rt.grad(outputs=[y], inputs=[x])[0]


class DeepLinearGrad(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = rt.nn.Linear(5, 5, bias_attr=False)

    def forward(self, x):
        x.stop_gradient = False
        h = x + x
        for _ in range(10):
            h = self.linear(h)
        return rt.grad([h], [x], None, create_graph=True, allow_unused=False)[0]


class FrozenLinear(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = rt.nn.Linear(5, 5, bias_attr=False)

    def forward(self, x):
        x.stop_gradient = False
        with rt.no_grad():
            y = self.linear(x)
        return y + x


def _input():
    x = rt.ones(shape=[10, 2, 5], dtype="float32") * rt.arange(5).astype("float32") / 4
    x.stop_gradient = False
    return x


def _made(cls):
    rt.seed(11)
    return cls()


@pytest.mark.parametrize("cls", [SquareGrad, DeepLinearGrad, FrozenLinear])
def test_forward_matches_eager(cls):
    net = _made(cls)
    same(net(_input()), dy2st.to_static(net)(_input()))


def _train(cls, convert):
    net = _made(cls)
    run = dy2st.to_static(net) if convert else net
    opt = rt.optimizer.SGD(learning_rate=0.01, grad_clip=rt.nn.ClipGradByGlobalNorm(2.0),
                           parameters=run.parameters())
    losses = []
    for _ in range(4):
        loss = rt.mean(rt.abs(run(_input()) - 1))
        loss.backward()
        opt.minimize(loss)
        run.clear_gradients()
        losses.append(float(loss))
    return run, losses, net.linear.weight.numpy()


@pytest.mark.parametrize("cls", [DeepLinearGrad, FrozenLinear])
def test_training_then_saving(cls, tmp_path):
    _, eager_losses, eager_weight = _train(cls, False)
    static, losses, weight = _train(cls, True)
    assert losses == eager_losses
    np.testing.assert_array_equal(weight, eager_weight)
    want = static(_input()).numpy()
    train_path = os.path.join(tmp_path, "train")
    dy2st.save(static, train_path)
    np.testing.assert_array_equal(dy2st.load(train_path)(_input()).numpy(), want)
    infer_path = os.path.join(tmp_path, "infer")
    dy2st.save(static, infer_path, input_spec=[rt.static.InputSpec(shape=[10, 2, 5], dtype="float32")])
    np.testing.assert_array_equal(dy2st.load(infer_path)(_input()).numpy(), want)


class PassesOneThrough(rt.nn.Layer):
    def forward(self, kept, bumped):
        bumped = bumped + 1
        return kept, bumped


def test_an_output_that_is_an_input():
    x, y = rt.to_tensor([1.0]), rt.to_tensor([2.0])
    x.stop_gradient = y.stop_gradient = False
    a, b = dy2st.to_static(PassesOneThrough())(x, y)
    out = a + b
    out.backward()
    np.testing.assert_array_equal(out.numpy(), [4])
    np.testing.assert_array_equal(x.grad.numpy(), [1])
    np.testing.assert_array_equal(y.grad.numpy(), [1])


class AllUnderNoGrad(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = rt.nn.Linear(3, 4)

    def forward(self, x):
        with rt.no_grad():
            out = self.linear(x)
        return out


def test_output_computed_under_no_grad_stops_gradients():
    x = rt.rand([2, 3], "float32")
    x.stop_gradient = False
    assert dy2st.to_static(AllUnderNoGrad())(x).stop_gradient is True


def tanh_grad_if_any(x):
    y = rt.tanh(x)
    if x.numel() > 0:
        return rt.grad([y], [x])[0]
    return rt.ones_like(x, dtype="float32")


def test_grad_under_an_if_on_numel():
    rt.seed(5)
    x = rt.randn([2, 2])
    x.stop_gradient = False
    same(tanh_grad_if_any(x), dy2st.to_static(tanh_grad_if_any)(x))
