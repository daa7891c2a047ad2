"""Python ints and bools in a list built in a tensor-dependent loop (`idx.append(i)` with the loop's
counter, `flags.append(i > 1)`) are stacked as one int64 / bool tensor. Eagerly the list holds Python
numbers: `idx[-1] / 3` is a double-precision Python float and `flags[0] + flags[1]` counts. The items
read back (indexing, `pop`, `for`, `sum`/`max`) used to be plain tensors: the quotient was rounded to
float32 and the bools added as a logical or, silently. They are now marked as the Python numbers
they stand for; a list that holds both Python ints and int tensors refuses `/` at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _counter_items(x, w):
    idx = []
    i = 0
    while rt.sum(x) < 10:
        x = x + 1
        idx.append(i)
        i += 1
    return w * (idx[-1] / 3), w * (idx.pop() / 7)


def _flag_items(x):
    flags = [False]
    i = 0
    while rt.sum(x) < 10:
        x = x + 1
        flags.append(i > 0)
        i += 1
    return rt.to_tensor(flags[0] + flags[-1] + flags[-1]), rt.to_tensor(sum(flags))


def _walked(x, w):
    idx = [1]
    i = 0
    while rt.sum(x) < 10:
        x = x + 1
        idx.append(i * 2 + 1)
        i += 1
    acc = w * 0.0
    for v in idx:
        acc = acc + w * (v / 3)
    return acc, w * (max(idx) / 7), w * (sum(idx) / 9)


def _carried_flag(x):
    i = 0
    seen = False
    while rt.sum(x) < 10:
        x = x + 1
        i += 1
        seen = i > 1
    return rt.to_tensor(seen + seen)


def _appended_after(x, w):
    idx = []
    i = 0
    while rt.sum(x) < 10:
        x = x + 1
        idx.append(i)
        i += 1
    if x.sum() > 11:
        idx.append(7)
    return w * (idx[-1] / 3)


STARTS = [1.0, 2.0, 3.5]


def _x(v):
    return t(np.full([2], v))


def _w():
    return t([0.1, 1.3], "float64")


@pytest.mark.parametrize("fn", [_counter_items, _walked, _appended_after])
def test_int_items_divide_as_python_ints(fn):
    check(fn, [(_x(v), _w()) for v in STARTS])


@pytest.mark.parametrize("fn", [_flag_items, _carried_flag])
def test_bool_items_count(fn):
    check(fn, [(_x(v),) for v in STARTS])


def _mixed(x):
    idx = [1]
    i = 0
    while rt.sum(x) < 10:
        x = x + 1
        idx.append(rt.to_tensor(i))
        i += 1
    return idx[-1] / 3


def test_python_ints_with_int_tensors_refuse_true_division():
    with pytest.raises(TypeError, match="Python int on some paths") as info:
        dy2st.to_static(_mixed)(_x(1.0))
    assert "test_hunt_loop_list_python_numbers.py" in str(info.value)
    assert "return idx[-1] / 3" in str(info.value)
