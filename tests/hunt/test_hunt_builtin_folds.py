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


def _cast_folds(x, k):
    n = int(k.sum())  # a Python int eagerly
    a = int(min(x.sum(), n * 3))  # a float32 tensor against an int: whichever is smaller, as an int
    b = float(max(n, x[0] * 2))  # an int against a tensor, as a float
    c = int(max(x.max(), 2.5))  # a tensor against a float
    return rt.full([], a, "int64"), rt.full([], b, "float64"), a / 4, x * (b * 0.1), rt.arange(max(c, 1))


def test_int_and_float_of_min_max_of_a_tensor_and_a_python_number_pick_as_eagerly():
    # `int(min(negative.sum(), positive_count * 3))` (PaddleOCR's DB loss) raised "min() of traced
    # values": the cast makes the tensor-or-number kind of the picked item moot
    sf = dy2st.to_static(_cast_folds, input_spec=[dy2st.InputSpec([None]), dy2st.InputSpec([None], "int64")])
    for x, k in (([1.5, 7.25, 3.0], [1, 1]), ([0.5, -4.0], [3]), ([2.0, 4.0], [2]), ([9.0, 0.1, 3.9], [0])):
        x, k = rt.to_tensor(x), rt.to_tensor(k)
        want, got = _cast_folds(x, k), sf(x, k)
        same(want, got, rtol=0, atol=0)
        assert [v.dtype for v in want[:2] + want[3:]] == [v.dtype for v in got[:2] + got[3:]]
    assert len(sf.program_cache) == 1
