"""`param.trainable` is Paddle's `not param.stop_gradient` (setting either sets both). It was a plain
attribute: `p.trainable = False` left the parameter taking gradients eagerly, and a converted forward
reading `self.fc.weight.trainable` kept the traced answer after it changed (no guard saw it)."""
import numpy as np

import dy2st
import runtime as rt


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)

    def forward(self, x):
        if self.fc.weight.trainable:
            return self.fc(x)
        return self.fc(x) * 2


def test_trainable_is_not_stop_gradient():
    p = rt.nn.Linear(2, 2).weight
    assert p.trainable and not p.stop_gradient
    p.trainable = False
    assert p.stop_gradient
    p.stop_gradient = False
    assert p.trainable
    frozen = rt.nn.Linear(2, 2, weight_attr=rt.ParamAttr(trainable=False)).weight
    assert not frozen.trainable and frozen.stop_gradient


def _run(net, calls):
    out = []
    for k, freeze in calls:
        net_layer = getattr(net, "__self__", net)
        net_layer.fc.weight.trainable = not freeze
        x = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * k, stop_gradient=False)
        y = net(x)
        y.sum().backward()
        g = net_layer.fc.weight.grad
        out.append((y.numpy(), x.grad.numpy(), None if g is None else g.numpy().copy()))
        net_layer.clear_gradients()
    return out


def test_converted_forward_follows_trainable_changes():
    calls = [(1, False), (2, True), (-1, True), (3, False)]
    rt.seed(0)
    eager = _run(_Net(), calls)
    rt.seed(0)
    net = _Net()
    static = _run(dy2st.to_static(net), calls)
    for (ye, xe, ge), (ys, xs, gs) in zip(eager, static):
        np.testing.assert_array_equal(ye, ys)
        np.testing.assert_array_equal(xe, xs)
        assert (ge is None) == (gs is None)
        if ge is not None:
            np.testing.assert_array_equal(ge, gs)
    assert eager[1][2] is None and eager[0][2] is not None
    assert len(net.forward.program_cache) == 2
