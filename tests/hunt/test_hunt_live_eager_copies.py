"""Eager tensors read by converted code through `detach()` or `rt.to_tensor(...)` (a parameter,
a global): each run reads their current value, as eager code calling them again does. They were
copies taken while the Program was built: after an optimizer step (or set_value) the Program kept
using the first weights."""
import numpy as np

import dy2st
import runtime as rt

G = rt.to_tensor(np.array([1.0, 2.0], "float32"))


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)

    def forward(self, x):
        return x @ self.fc.weight.detach() * self.fc(x) + rt.to_tensor(self.fc.bias)


def _reads_global(x):
    return x * rt.to_tensor(G) + rt.to_tensor([G, G * 2]).sum(0) + G.detach() * rt.to_tensor(G, dtype="float64").astype("float32")


def test_detached_parameters_follow_optimizer_steps():
    net = _Net()
    sf = dy2st.to_static(net)
    opt = rt.optimizer.SGD(0.1, parameters=net.parameters())
    x = rt.to_tensor(np.array([[1.0, 2.0]], "float32"))
    for _ in range(3):
        out = sf(x)
        np.testing.assert_array_equal(out.numpy(), _Net.forward(net, x).numpy())
        out.sum().backward()
        grads = [p.grad.numpy().copy() for p in net.parameters()]
        opt.clear_grad()
        _Net.forward(net, x).sum().backward()
        for g, p in zip(grads, net.parameters()):
            np.testing.assert_array_equal(g, p.grad.numpy())
        opt.step()
        opt.clear_grad()
    assert len(sf.forward.program_cache) == 1


def test_global_tensor_copies_are_read_live():
    sf = dy2st.to_static(_reads_global)
    x = rt.to_tensor(np.array([1.0, -1.0], "float32"))
    try:
        for v in ([1.0, 2.0], [5.0, -7.0], [0.5, 3.0]):
            G.set_value(np.array(v, "float32"))
            out = sf(x)
            assert out.stop_gradient
            np.testing.assert_array_equal(out.numpy(), _reads_global(x).numpy())
        assert len(sf.program_cache) == 1
    finally:
        G.set_value(np.array([1.0, 2.0], "float32"))
