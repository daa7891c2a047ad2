"""`range()` of a float or bool tensor raises in converted code as eagerly (the tensor's `__index__`
refuses it), instead of looping: `for i in range(t)` with t = 2.5 ran two iterations converted."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _count(x, n):
    s = x * 0
    for i in range(n):
        s = s + i
    return s


def _count_from(x, n):
    s = x * 0
    for i in range(1, n, 2):
        s = s + i
    return s


def _count_float_of(x, n):
    s = x * 0
    for i in range(float(n)):
        s = s + i
    return s


X = np.array([1.0, -2.0, 3.0], "float32")
GLOBAL_FLOAT = rt.to_tensor(2.0)


def _count_global(x):
    s = x * 0
    for i in range(GLOBAL_FLOAT):
        s = s + i
    return s


@pytest.mark.parametrize("fn", [_count, _count_from])
@pytest.mark.parametrize("bound, dtype", [(2.5, "float32"), (2.0, "float64"), (True, "bool")])
def test_float_or_bool_tensor_bound_raises_as_eagerly(fn, bound, dtype):
    with pytest.raises(TypeError, match=f"only integer tensors can be used as an index, got {dtype}"):
        fn(t(X), t(bound, dtype))
    with pytest.raises(TypeError, match=f"only integer tensors can be used as an index, got {dtype}") as info:
        dy2st.to_static(fn)(t(X), t(bound, dtype))
    assert "for i in range(" in str(info.value)


def test_python_float_and_eager_float_tensor_bounds_raise():
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        dy2st.to_static(_count_float_of)(t(X), t(3.0))
    with pytest.raises(TypeError, match="only integer tensors can be used as an index, got float32"):
        dy2st.to_static(_count_global)(t(X))


def test_int_bounds_still_loop():
    check(_count, [(t(X), t(3, "int64")), (t(X), t(0, "int32"))])
    check(_count_from, [(t(X), t(6, "int64")), (t(X), t(-2, "int64"))])
