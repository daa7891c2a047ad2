"""``y[idx] = v`` with an element named twice keeps the last write (numpy's and Paddle's forward):
the earlier value has no effect, so it gets no gradient (every duplicate used to get one). Paddle
3.3 credits the first duplicate instead, against its own forward; these are the true gradients
(finite differences agree)."""
import numpy as np

from tests.hunt.eager_checks import check, t

import runtime as rt

W = [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]


def _rows(w, i):
    y = rt.zeros([3])
    y[i] = w[0] * w[1]
    return y


def _pairs(w):
    y = w * 1
    y[[0, 0], [1, 1]] = rt.to_tensor([1.0, 2.0]) * w[0, :2]
    return y


def _grad(fn, *args):
    w = t(W)
    w.stop_gradient = False
    fn(w, *args).sum().backward()
    return w.grad.numpy()


def test_last_write_alone_gets_the_gradient():
    np.testing.assert_array_equal(_grad(_rows, t([0, 0, 2], "int64")),
                                  [[0.0, 0.25, -3.0], [0.0, -1.0, 2.0]])
    np.testing.assert_array_equal(_grad(_pairs), [[1.0, 2.0, 1.0], [1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(_rows(t(W), t([0, 0, 2], "int64")).numpy(), [-0.25, 0.0, -6.0])


def test_converted_matches_eager_for_several_indices():
    check(_rows, [(t(W), t([0, 0, 2], "int64")), (t(W), t([2, 1, 2], "int64")), (t(W), t([0, 1, 2], "int64"))],
          grad=True)
    check(_pairs, [(t(W),), (t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),)], grad=True)
