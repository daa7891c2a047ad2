"""`y[k] = v` with a value that has extra leading 1-dims (a shape-[1] tensor into one element), which
Paddle writes, eagerly and converted, with the value's gradient."""
from tests.compat.helpers import arr, check


def _write_one_element_values(x, v, w):
    y = x * 1
    y[0, 1] = v * 3  # shape [1] into one element
    y[3] = w * 2  # shape [1, 1] into a row of 2: broadcast once its leading 1 is dropped
    return y


def test_one_element_values_write_single_elements_with_gradients():
    check(_write_one_element_values, (arr(4, 2), arr(1, seed=1), arr(1, 1, seed=2)), grad=True)
