"""``F.adaptive_max_pool2d(..., return_mask=True)`` and ``nn.AdaptiveMaxPool2D(return_mask=True)``: values,
int32 mask and gradient equal to Paddle 3.3's (hard-coded below, from ``paddle.nn.functional.
adaptive_max_pool2d`` on the same input with the same weighted-sum backward), eagerly and converted; and
``F.interpolate(mode="area")`` of a 5-D input."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

X = np.array([[[[1, 5, 2, 0, 3], [4, 4, 1, 7, 2], [0, 9, 3, 3, 1], [2, 1, 8, 6, 5]]]], "float32")
WEIGHTS = np.arange(6, dtype="float32").reshape(1, 1, 2, 3)
PADDLE_OUT = [[[[5.0, 7.0, 7.0], [9.0, 9.0, 6.0]]]]
PADDLE_MASK = [[[[1, 8, 8], [11, 11, 18]]]]
PADDLE_GRAD = [[[[0, 0, 0, 0, 0], [0, 0, 0, 3, 0], [0, 7, 0, 0, 0], [0, 0, 0, 5, 0]]]]


def _pool(x):
    return F.adaptive_max_pool2d(x, [2, 3], return_mask=True)


def test_values_mask_and_gradient_match_paddle_eagerly_and_converted():
    for fn in (_pool, dy2st.to_static(_pool)):
        x = rt.to_tensor(X, stop_gradient=False)
        out, mask = fn(x)
        (out * rt.to_tensor(WEIGHTS)).sum().backward()
        assert str(mask.dtype) == "int32"
        np.testing.assert_array_equal(out.numpy(), PADDLE_OUT)
        np.testing.assert_array_equal(mask.numpy(), PADDLE_MASK)
        np.testing.assert_array_equal(x.grad.numpy(), PADDLE_GRAD)


def test_layer_returns_the_mask():
    out, mask = nn.AdaptiveMaxPool2D([2, 3], return_mask=True)(rt.to_tensor(X))
    np.testing.assert_array_equal(out.numpy(), PADDLE_OUT)
    np.testing.assert_array_equal(mask.numpy(), PADDLE_MASK)


# F.interpolate(mode="area") of a 5-D input: adaptive average pooling to `size`, as Paddle's (values from
# paddle.nn.functional.interpolate(..., size=[2, 3, 2], mode="area") on this input)
X5 = (np.arange(2 * 5 * 4 * 3, dtype="float32") % 7).reshape(1, 2, 5, 4, 3)
PADDLE_AREA = [2.9166667, 2.75, 3.0, 2.8333333, 3.0833333, 2.9166667, 3.0, 2.8333333, 3.0833333, 2.9166667,
               3.1666667, 3.0, 2.8333333, 3.25, 2.9166667, 2.75, 3.0, 2.8333333, 2.9166667, 2.75, 3.0, 2.8333333,
               3.0833333, 2.9166667]


def _area(x):
    return F.interpolate(x, size=[2, 3, 2], mode="area")


def test_area_of_a_5d_input_matches_paddle_and_converts_with_gradients():
    grads = []
    for fn in (_area, dy2st.to_static(_area)):
        x = rt.to_tensor(X5, stop_gradient=False)
        out = fn(x)
        np.testing.assert_allclose(out.numpy().ravel(), PADDLE_AREA, rtol=1e-6)
        (out * out).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
