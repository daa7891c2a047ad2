"""max/min/any/all over traced values: decided when the Program runs (an unknown dim against an
int, one-element tensors), with the gradient only to the item picked, as eagerly."""
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import arr, check, same


def _folds(x, y):
    n = max(x.shape[0], 3)
    m = min(x.shape[0], 3, 10)
    picked = max(x.sum(), y.sum())
    low = min([x[0], x[1], x[2]])
    either = any([x.sum() > 0, y.sum() > 0])
    both = all(v > 0 for v in [x[0], x[1]])
    out = x * 2 if any([False, x.sum() > 0]) else x
    return rt.zeros([n]), rt.zeros([m]), picked, low, either, both, out, n / 2


def test_max_min_any_all_of_traced_values():
    check(_folds, (arr(4), arr(4, seed=1)), (arr(3, lo=-2, hi=-1), arr(3, lo=2, hi=3)), grad=True)
    sf = dy2st.to_static(_folds, input_spec=[dy2st.InputSpec([None])] * 2)
    for n in (3, 5):
        x, y = rt.to_tensor(arr(n)), rt.to_tensor(arr(n, seed=2))
        same(_folds(x, y), sf(x, y))


def _mixed_max(x):
    return max(x[0] * 1, 0.5)


def test_max_of_a_tensor_and_a_python_float_is_refused_at_the_users_line():
    # eagerly the result is the tensor or the float 0.5, as the comparison goes: no Program value is
    with pytest.raises(TypeError, match=r"max\(\) of traced values") as info:
        dy2st.to_static(_mixed_max)(rt.to_tensor([1.0, 2.0]))
    text = str(info.value) + notes(info.value)
    assert "test_hunt_builtin_folds.py" in text and "return max(x[0] * 1, 0.5)" in text
