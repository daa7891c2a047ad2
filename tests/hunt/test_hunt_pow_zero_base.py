"""The gradient of x ** y with respect to y is 0 where x == 0 and y >= 0, as in Paddle (it was
out * log(0) = 0 * -inf = nan); broadcasting still reduces it to y's shape."""
import numpy as np

import dy2st
import runtime as rt


def _pow(x, y):
    return (x ** y).sum()


def test_pow_exponent_gradient_at_zero_base_eager_and_converted():
    for fn in (_pow, dy2st.to_static(_pow)):
        x = rt.to_tensor([[0.0, 2.0], [0.0, 1.0]], stop_gradient=False)
        y = rt.to_tensor([3.0, 2.0], stop_gradient=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            fn(x, y).backward()
        np.testing.assert_allclose(y.grad.numpy(), [0.0, 4 * np.log(2.0)], rtol=1e-6)
        np.testing.assert_allclose(x.grad.numpy(), [[0.0, 4.0], [0.0, 2.0]], rtol=1e-6)
