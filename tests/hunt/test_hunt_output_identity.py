"""Outputs of a converted function keep eager's object identity: one tensor returned twice is one
Tensor, and a returned input is the caller's own Tensor."""
import numpy as np

import dy2st
import runtime as rt


def _twice(x):
    y = x * 2
    return y, {"again": [y]}


def _identity(x, w):
    return x, x * w


def test_tensor_returned_twice_is_one_object():
    a, d = dy2st.to_static(_twice)(rt.to_tensor([1.0, 2.0]))
    assert a is d["again"][0]
    a[0] = 5.0
    assert d["again"][0].numpy().tolist() == [5.0, 4.0]


def test_returned_input_is_the_callers_tensor_and_gradients_flow():
    sf = dy2st.to_static(_identity)
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    w = rt.to_tensor([3.0, 4.0], stop_gradient=False)
    same, prod = sf(x, w)
    assert same is x
    (same.sum() + prod.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 5.0])
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])
