"""A list built in a tensor loop is one stacked tensor of one dtype and item shape: an item
written or appended after the loop with another dtype or shape is refused at the user's line
(eager Python stores it as it is; a silent cast or broadcast would hand back another value),
while items that fit still match eager."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _filled(x, n):
    a = []
    i = 0
    while i < n:
        a.append(x + i)
        i += 1
    return a


def _replace(x, n, v):
    a = _filled(x, n)
    a[1] = v
    return a[1], a[0]


def _extend(x, n, v):
    a = _filled(x, n)
    a.append(v)
    return a[-1], a[0]


@pytest.mark.parametrize("fn", [_replace, _extend])
def test_items_of_another_dtype_or_shape_are_refused(fn):
    n = rt.full([1], 3, "int32")
    for x, v in [([1, 2], [2.5, 2.5]), ([1.0, 2.0], np.float64([2.5, 2.5])), ([1.0, 2.0, 3.0], [2.5, 2.5])]:
        x = rt.to_tensor(np.array(x, "float32" if isinstance(x[0], float) else "int32"))
        with pytest.raises(TypeError, match="one dtype and") as info:
            dy2st.to_static(fn)(x, n, rt.to_tensor(v, dtype=getattr(v, "dtype", "float32")))
        assert __file__ in str(info.value)


def test_items_that_fit_match_eager():
    n = np.array([3], "int32")
    for fn in (_replace, _extend):
        check(fn, (np.float32([1, 2]), n, np.float32([7, 8])), (np.float32([0, 5]), n, np.float32([1, 1])))
