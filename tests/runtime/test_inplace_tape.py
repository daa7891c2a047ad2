"""Eager in-place writes (``y[k] = v``) after a tensor was used: earlier uses keep the value and
producer they saw, as if the write made a new tensor (gradients checked by hand)."""
import numpy as np

import runtime as rt


def _leaf(shape=(3, 4)):
    return rt.to_tensor(np.arange(np.prod(shape), dtype="float32").reshape(shape) / 10, stop_gradient=False)


def test_write_reading_the_same_row_keeps_its_gradient():
    x = _leaf()
    y = x * 2
    y[1] = y[1] + 1           # the new row 1 still depends on x[1]
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 4), 2.0, "float32"))


def test_write_with_a_tensor_index_after_a_slice_write():
    x = _leaf()
    y = rt.zeros([3, 4], "float32")
    y[1:3] = x[1:3] * 2
    i = rt.to_tensor(1)
    y[i] = y[i] + 1
    y.sum().backward()
    want = np.array([[0] * 4, [2] * 4, [2] * 4], "float32")
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_an_earlier_product_uses_the_value_before_the_write():
    w = _leaf((4,))
    y = rt.to_tensor(np.ones((4,), "float32") * 3)
    z = y * w                  # dz/dw = y as it was: 3
    y[0] = 100.0
    z.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((4,), 3.0, "float32"))
    assert float(y[0]) == 100.0
