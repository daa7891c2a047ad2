"""`float(t)` and `t.numpy()` are plain Python/numpy values eagerly, which backward never reaches;
converted, they stay traced tensors, and gradients must not flow through them either."""
from tests.compat.helpers import arr, check


def _scaled_by_python_values(x, w):
    f = float(x.sum())
    s = x.numpy()[0]
    return x * f + w * s, f / 3


def test_gradients_do_not_flow_through_float_and_numpy_values():
    check(_scaled_by_python_values, (arr(3), arr(3, seed=1)), grad=True)
