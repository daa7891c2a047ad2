"""Second derivatives of tanh and sigmoid (Paddle's test_gradname_parse.py, test_high_order_net.py
differentiate `paddle.grad(tanh(x), x, create_graph=True)` again): their gradient ops have
gradients, eagerly and in converted code, checked against finite differences."""
import numpy as np

import runtime as rt
from tests.compat.helpers import check


def _fd(f, x0, eps=1e-6):
    return np.array([(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(x0.size)])


def _second(act):
    def fn(x):
        g, = rt.grad(act(x), x, create_graph=True)
        return g * g  # depends on x through tanh'/sigmoid' itself
    return fn


def test_tanh_and_sigmoid_second_derivatives():
    x0 = np.array([0.3, -1.2, 2.0])
    d_tanh = lambda v: 1 - np.tanh(v) ** 2  # noqa: E731
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    d_sig = lambda v: sig(v) * (1 - sig(v))  # noqa: E731
    for act, d in ((rt.tanh, d_tanh), (rt.sigmoid, d_sig)):
        x = rt.to_tensor(x0, stop_gradient=False)
        g, = rt.grad(act(x).sum(), x, create_graph=True)
        gg, = rt.grad(g.sum(), x)
        np.testing.assert_allclose(gg.numpy(), np.diag(_fd(lambda v: d(v), x0)), rtol=1e-5)
        check(_second(act), (x0.astype("float32"),), (np.array([0.0, 4.0], "float32"),), grad=True)
