"""Item writes among several targets (`y[i], y[j] = y[j], y[i]`, `y[0] = z[0] = v`) convert inside
tensor-dependent branches and loops like single ones, in Python's order: the value first, then
each target left to right (they were refused there as writes into a tensor from outside)."""
import numpy as np

import dy2st
from tests.hunt.eager_checks import check, t


def _swap_in_branch(x):
    y = x * 1
    if x.sum() > 0:
        y[0], y[2] = y[2], y[0]
    return y


def _bubble_in_tensor_loop(x, n):
    y = x * 1
    for i in range(n):
        if y[i] > y[i + 1]:
            y[i], y[i + 1] = y[i + 1], y[i]
    return y


def _chained_targets_in_loop(x, n):
    y = x * 1
    z = x * 2
    i = 0
    while i < n:
        y[i] = z[i + 1] = x[i] * 10
        i += 1
    return y, z


def _targets_left_to_right(x):
    y = x * 1
    i = 0
    if x.sum() > 0:
        i, y[i] = 2, 7.0  # `y[i]` sees the new i, as eagerly
    return y


X = np.array([3.0, -2.0, 1.0, 4.0], "float32")


def test_swap_in_tensor_branch_and_loop():
    check(_swap_in_branch, [(t(X),), (t(-X),)], grad=True)
    check(_bubble_in_tensor_loop, [(t(X), t(3, "int64")), (t(-X), t(2, "int64")), (t(X), t(0, "int64"))],
          grad=True)
    out = dy2st.to_static(_bubble_in_tensor_loop)(t(X), t(3, "int64"))
    np.testing.assert_array_equal(out.numpy(), [-2.0, 1.0, 3.0, 4.0])


def test_chained_and_ordered_targets():
    check(_chained_targets_in_loop, [(t(X), t(2, "int64")), (t(X), t(3, "int64"))])
    check(_targets_left_to_right, [(t(X),), (t(-X),)], grad=True)
