"""Scenarios of Paddle's test_gradname_parse, rewritten: a converted forward returning
`paddle.grad(x4, x)` through two Linear and two legacy `nn.BatchNorm` layers, trained by the
`.mean()` of that gradient under Adam with `L1Decay` (`opt.minimize`); and second-order gradients,
`paddle.grad` of a function's own `paddle.grad(..., create_graph=True)` output (tanh, and a matmul
whose other factor needs no gradient, where the input gets none). Converted equals eager in values
and gradients. Paddle's test leaves `create_graph` unset in the first case and relies on its
static graph keeping the gradient differentiable anyway; eagerly (here and in Paddle) that
gradient has no history, so `loss.backward()` on it fails, so the ported forward asks for
`create_graph=True`, as the eager model must."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.nn import BatchNorm, Linear


class SimpleNet(rt.nn.Layer):
    def __init__(self, create_graph=True):
        super().__init__()
        self.linear0 = Linear(100, 50)
        self.linear1 = Linear(50, 10)
        self.bn0 = BatchNorm(50)
        self.bn1 = BatchNorm(10)
        self.create_graph = create_graph

    def forward(self, x):
        x1 = self.linear0(x)
        x2 = self.bn0(x1)
        x3 = self.linear1(x2)
        x4 = self.bn1(x3)
        dx = rt.grad(x4, x, create_graph=self.create_graph)
        return dx[0]


def _grad_name_parse(to_static, seed):
    rt.seed(seed)
    net = SimpleNet()
    opt = rt.optimizer.Adam(learning_rate=0.1, parameters=net.parameters(),
                            weight_decay=rt.regularizer.L1Decay(0.01))
    if to_static:
        net = dy2st.to_static(net)
    inp = rt.rand([16, 100], dtype="float32")
    inp.stop_gradient = False
    out = net(inp)
    loss = out.mean()
    loss.backward()
    shapes = {}
    for name, param in net.bn1.named_parameters():
        if name in ["weight", "bias"]:
            shapes[name] = (param.shape, None if param.grad is None else param.grad.shape)
    grads = [None if p.grad is None else p.grad.numpy() for p in net.parameters()]
    opt.minimize(loss)
    return out.numpy(), inp.grad.numpy(), grads, shapes, [p.numpy() for p in net.parameters()]


@pytest.mark.parametrize("seed", [0, 1])
def test_grad_in_forward_through_batch_norm_trains_as_eagerly(seed):
    dy, st = _grad_name_parse(False, seed), _grad_name_parse(True, seed)
    np.testing.assert_array_equal(st[0], dy[0])
    np.testing.assert_array_equal(st[1], dy[1])
    for a, b in zip(dy[2], st[2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(b, a)
    # bn1's scale has a gradient of its own shape; its offset moves no input gradient: none, both ways
    assert st[3] == dy[3] and st[3]["weight"] == ([10], [10]) and st[3]["bias"] == ([10], None)
    for a, b in zip(dy[4], st[4]):
        np.testing.assert_array_equal(b, a)


def test_grad_without_create_graph_cannot_be_trained_through_eagerly_or_converted():
    x = rt.rand([4, 100], dtype="float32")
    x.stop_gradient = False
    for net in (SimpleNet(create_graph=False), dy2st.to_static(SimpleNet(create_graph=False))):
        out = net(x)
        assert out.stop_gradient
        with pytest.raises(RuntimeError, match="does not need a gradient"):
            out.mean().backward()


def tanh_high_order_grad(x):
    y = rt.tanh(x)
    return rt.grad(y, x, create_graph=True)[0]


def matmul_high_order_grad(x, y):
    z = rt.matmul(x, y)
    return rt.grad(z, [x], create_graph=True, allow_unused=True)


def _second_order(func, make_inputs):
    res = []
    for to_static in (False, True):
        inputs = make_inputs()
        fn = dy2st.to_static(func, full_graph=True) if to_static else func
        out = fn(*inputs)
        grads = rt.grad(out, [inputs[0]], allow_unused=True)
        res.append((out, [None if g is None else g.numpy() for g in grads],
                    [None if t.grad is None else t.grad.numpy() for t in inputs]))
    (dy_out, dy_grad, dy_input_grad), (st_out, st_grad, st_input_grad) = res
    dy_out, st_out = rt.utils.flatten(dy_out), rt.utils.flatten(st_out)
    for a, b in zip(dy_out, st_out):
        assert a.stop_gradient == b.stop_gradient
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    np.testing.assert_equal(st_grad, dy_grad)
    np.testing.assert_equal(st_input_grad, dy_input_grad)  # grad() leaves .grad untouched
    return dy_grad


def _leaf(value, stop_gradient=False):
    t = rt.to_tensor(value)
    t.stop_gradient = stop_gradient
    return t


@pytest.mark.parametrize("v", [1.0, -0.3, 2.0])
def test_tanh_second_order(v):
    (g,) = _second_order(tanh_high_order_grad, lambda: (_leaf(np.full((1,), v, "float32")),))
    t = np.tanh(np.float32(v))
    np.testing.assert_allclose(g, [-2 * t * (1 - t * t)], rtol=1e-5)


def test_matmul_second_order_has_no_gradient():
    assert _second_order(matmul_high_order_grad, lambda: (_leaf(np.ones([1], "float32")),
                                                          _leaf(np.ones([1], "float32")))) == [None]
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    assert _second_order(matmul_high_order_grad, lambda: (_leaf(x), _leaf(y, stop_gradient=True))) == [None]
