"""Gradients of a tensor used three or more times sum in one order eagerly and in a Program
(float addition is not associative), and a leaf's contributions are summed before they are added
to the .grad it already holds: a converted RNN loop matches eager bitwise, also on a second
backward(), and ``rt.slice`` with int or tensor bounds has an eager gradient."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class _Gru(rt.nn.Layer):
    """The recurrence of Paddle's DynamicGRU test model: each hidden state feeds the next step,
    the gate products and the output list (three uses)."""

    def __init__(self, reverse):
        super().__init__()
        self.cell = rt.nn.GRUCell(6, 4)
        self.reverse = reverse

    def forward(self, x, h):
        res = []
        for i in range(x.shape[1]):
            j = rt.shape(x)[1] - 1 - i if self.reverse else i
            step = rt.reshape(rt.slice(x, axes=[1], starts=[j], ends=[j + 1]), [-1, 6])
            h, _ = self.cell(step, h)
            res.append(rt.reshape(h, [-1, 1, 4]))
        if self.reverse:
            res = res[::-1]
        return (rt.concat(res, axis=1) ** 2).sum()


def _grads(convert, reverse, x, h, twice):
    rt.seed(1)
    m = _Gru(reverse)
    if convert:
        m = dy2st.to_static(m)
    loss = m(rt.to_tensor(x), rt.to_tensor(h))
    loss.backward()
    if twice:
        loss.backward()
    return [p.grad.numpy() for p in m.parameters()]


@pytest.mark.parametrize("twice", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_rnn_loop_gradients_match_eager_bitwise(reverse, twice):
    rng = np.random.default_rng(0)
    for t in (3, 6):
        x = rng.standard_normal((3, t, 6)).astype("float32")
        h = rng.standard_normal((3, 4)).astype("float32")
        want = _grads(False, reverse, x, h, twice)
        got = _grads(True, reverse, x, h, twice)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(want, got))


def test_rt_grad_sums_in_backward_order():
    rng = np.random.default_rng(1)
    x = rt.to_tensor(rng.standard_normal((5,)).astype("float32") * 1e3, stop_gradient=False)
    w = rt.to_tensor(rng.standard_normal((5,)).astype("float32"), stop_gradient=False)
    y = x * w
    loss = (y * 1e-3 + rt.sin(y) * 7.0 + y * y * 0.1).sum()
    g, = rt.grad(loss, [w], retain_graph=True)
    loss.backward()
    assert g.numpy().tobytes() == w.grad.numpy().tobytes()


@pytest.mark.parametrize("bounds", ["int", "tensor"])
def test_slice_has_an_eager_gradient(bounds):
    a = np.arange(12, dtype="float32").reshape(3, 4)
    x = rt.to_tensor(a, stop_gradient=False)
    start = 1 if bounds == "int" else rt.to_tensor(1)
    y = rt.slice(x, axes=[1], starts=[start], ends=[start + 2])
    (y * y).sum().backward()
    want = np.zeros_like(a)
    want[:, 1:3] = 2 * a[:, 1:3]
    np.testing.assert_array_equal(x.grad.numpy(), want)
    x2 = rt.to_tensor(a, stop_gradient=False)
    g, = rt.grad((rt.strided_slice(x2, [1], [0], [4], [2]) ** 2).sum(), [x2], create_graph=True)
    g.sum().backward()  # the gradient of slice_grad is a slice
    want2 = np.zeros_like(a)
    want2[:, ::2] = 2
    np.testing.assert_array_equal(x2.grad.numpy(), want2)
