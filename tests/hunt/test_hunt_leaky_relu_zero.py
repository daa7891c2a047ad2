"""leaky_relu's gradient at 0 (and -0) is 1, as in Paddle (it was negative_slope)."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _leaky(x):
    return F.leaky_relu(x, 0.1)


def test_leaky_relu_gradient_at_zero_is_one_eager_and_converted():
    for fn in (_leaky, dy2st.to_static(_leaky)):
        x = rt.to_tensor(np.array([0.0, -0.0, -2.0, 3.0], "float32"), stop_gradient=False)
        out = fn(x)
        out.sum().backward()
        np.testing.assert_allclose(out.numpy(), [0.0, 0.0, -0.2, 3.0], rtol=1e-6)
        np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0, 0.1, 1.0], rtol=1e-6)
