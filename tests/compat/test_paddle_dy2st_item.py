"""Scenarios of Paddle's test_item and test_inplace_assign: `Tensor.item(*idx)` values and errors
(Paddle's messages) eagerly and converted, and `Tensor._inplace_assign`."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check


def _item_at(x, *idx):
    return x.item(*idx)


@pytest.mark.parametrize("idx,exc,msg", [
    ((10000,), ValueError, r"index 10000 is out of bounds for size 512"),
    ((6, 7), ValueError, r"incorrect number of indices for Tensor"),
    ((6.0, 7.0, 1.0), TypeError, r"argument \(position 1\) must be long, but got float"),
    ((1, "a", 1), TypeError, r"argument \(position 2\) must be long, but got str"),
    ((9, 9, 9), ValueError, r"index 9 is out of bounds for axis 0 with size 8"),
])
def test_item_errors_match_paddle_eager_and_converted(idx, exc, msg):
    t = rt.rand([8, 8, 8])
    with pytest.raises(exc, match=msg):
        _item_at(t, *idx)
    with pytest.raises(exc, match=msg):
        dy2st.to_static(lambda x: x.item(*idx))(t)


def test_item_values_match():
    t = rt.rand([2, 3, 4])
    for idx in [(), (5,), (0, 2, 1), (1, 1, 3)]:
        if not idx:
            t1 = rt.rand([1])
            assert dy2st.to_static(lambda x: x.item())(t1) == t1.item()
            continue
        assert dy2st.to_static(lambda x: x.item(*idx))(t) == t.item(*idx)


def test_inplace_assign_takes_value_shape_and_gradient():
    a = rt.ones((4, 2))
    b = rt.ones((4, 3)) * 2
    assert a._inplace_assign(b) is a
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    x = rt.to_tensor([1.0, 3.0], stop_gradient=False)
    y = 1 * x
    y._inplace_assign(x * x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 6.0])


def _inplace_in_converted(x):
    y = x * 1
    y._inplace_assign(x * 3)
    return y + 1


def test_inplace_assign_in_converted_code():
    check(_inplace_in_converted, (arr(3, seed=1),), (arr(2, 2, seed=2),), grad=True)
