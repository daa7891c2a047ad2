"""`x.item(*index)` works as Paddle's: eagerly numpy's `item` (a flat index or one index per dim;
ValueError when out of bounds), and in a converted function a traced Python number without a
gradient, as `float(x)` is, instead of a TypeError."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _scaled(x):
    if x.sum().item() > 2:
        return x * x.max().item()
    return x - x.min().item()


def _indexed(x):
    return x.item(6), x.item(1, 2, 0), x.item(-1)


def test_item_in_converted_code_matches_eager():
    check(_scaled, (np.float32([1, 2]),), (np.float32([0.5, 1]),), grad=True, programs=1)
    check(_indexed, (np.arange(24, dtype="float32").reshape(2, 3, 4),), (np.arange(27).reshape(3, 3, 3),))


@pytest.mark.parametrize("args", [(10000,), (6, 7), (9, 9, 9)])
def test_item_out_of_bounds_raises_value_error_eager_and_static(args):
    def f(x):
        return x.item(*args)

    x = rt.rand([8, 8, 8])
    with pytest.raises(ValueError):
        f(x)
    with pytest.raises(ValueError):
        dy2st.to_static(f)(x)
