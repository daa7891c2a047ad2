"""The in-place activations F.relu_, elu_, leaky_relu_, softmax_, tanh_, hardtanh_, thresholded_relu_
(runtime/ops/nn_activation_inplace.py): values, aliasing and gradients as Paddle 3.3 gives them
(hard-coded below), converted against eager bitwise with gradients, in a saved/loaded and exported layer;
the leaf and fed-input errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from nnapi_helpers import check_converted, check_onnx, check_saved
from tests.error_helpers import line_of, notes

X = np.array([[-1, 2, 0.5], [0.2, -0.3, 1.5]], "float32")
W = np.arange(6, dtype="float32").reshape(2, 3)

# Paddle 3.3: y = x * 1.5; F.<name>(y, **kw) returns y itself, y's values; x.grad of sum(y * W)
PADDLE = [
    ("relu_", {}, [0.0, 3.0, 0.75, 0.3, 0.0, 2.25], [0.0, 1.5, 3.0, 4.5, 0.0, 7.5]),
    ("elu_", dict(alpha=0.5), [-0.388435, 3.0, 0.75, 0.3, -0.181186, 2.25], [0.0, 1.5, 3.0, 4.5, 1.912884, 7.5]),
    ("leaky_relu_", dict(negative_slope=0.2), [-0.3, 3.0, 0.75, 0.3, -0.09, 2.25], [0.0, 1.5, 3.0, 4.5, 1.2, 7.5]),
    ("softmax_", dict(axis=0), [0.141851, 0.969231, 0.182426, 0.858149, 0.030769, 0.817574],
     [-0.547782, -0.1342, -0.671159, 0.547782, 0.1342, 0.67116]),
    ("tanh_", {}, [-0.905148, 0.995055, 0.635149, 0.291313, -0.421899, 0.978026],
     [0.0, 0.014799, 1.789757, 4.118116, 4.932008, 0.325986]),
    ("hardtanh_", dict(min=-0.5, max=0.7), [-0.5, 0.7, 0.7, 0.3, -0.45, 0.7], [0.0, 0.0, 0.0, 4.5, 6.0, 0.0]),
    ("thresholded_relu_", dict(threshold=0.3, value=-1.0), [-1.0, 3.0, 0.75, -1.0, -1.0, 2.25],
     [0.0, 1.5, 3.0, 0.0, 0.0, 7.5]),
]


@pytest.mark.parametrize("name,kw,values,grad", PADDLE, ids=[p[0] for p in PADDLE])
def test_inplace_activation_matches_paddle_and_converts(name, kw, values, grad):
    x = rt.to_tensor(X, stop_gradient=False)
    y = x * 1.5
    alias = y
    assert getattr(F, name)(y, **kw) is y
    np.testing.assert_allclose(alias.numpy().ravel(), values, rtol=1e-5, atol=1e-6)
    (y * rt.to_tensor(W)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy().ravel(), grad, rtol=1e-5, atol=1e-5)

    def fn(x):
        y = x * 1.5
        getattr(F, name)(y, **kw)  # a statement: y itself changes, in the Program too
        return y * 2.0
    (out,), _ = check_converted(fn, X)
    np.testing.assert_allclose(out.ravel(), np.array(values) * 2, rtol=1e-5, atol=1e-6)


def _writes_into_input(x):
    F.relu_(x)
    return x


def _writes_into_input_in_an_expression(x):
    return F.relu_(x) * 2


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 4)

    def forward(self, x):
        h = F.leaky_relu_(self.fc(x), 0.1)
        return F.softmax_(F.tanh_(h), axis=-1)


def test_inplace_errors_as_paddle():
    with pytest.raises(ValueError, match="Leaf Var that doesn't stop gradient can't use inplace strategy"):
        F.relu_(rt.to_tensor(X, stop_gradient=False))
    with pytest.raises(AssertionError, match="elu_ only support alpha >= 0"):
        F.elu_(rt.to_tensor(X), alpha=-1.0)
    with pytest.raises(TypeError, match="keeps both") as info:
        F.softmax_(rt.to_tensor(X), dtype="float64")
    del info
    # a converted function writes into its caller's tensor as a statement (as eagerly); inside a larger
    # expression the write into an argument is an error at the user's line
    x, x_eager = rt.to_tensor(X), rt.to_tensor(X)
    assert dy2st.to_static(_writes_into_input)(x) is x
    np.testing.assert_array_equal(x.numpy(), _writes_into_input(x_eager).numpy())
    with pytest.raises(TypeError, match=r"write x = F.relu\(x\) instead") as info:
        dy2st.to_static(_writes_into_input_in_an_expression)(rt.to_tensor(X))
    assert f'line {line_of(_writes_into_input_in_an_expression, "F.relu_(x)")}' in notes(info.value)


def test_inplace_in_a_layer_saved_loaded_and_exported(tmp_path):
    rt.seed(0)
    check_converted(_Net(), X)
    check_saved(_Net(), X, tmp_path, tol=1e-6)
    net = _Net()
    check_onnx(net, X, tol=1e-6)
