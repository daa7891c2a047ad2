"""A list built in a tensor loop stays a list to user code: a slice of it is a list, `+` joins
lists (it does not add elementwise), and its items keep the dtype a Python-int counter gives eagerly.
An empty list read before a tensor loop appends to it is refused by name."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import same


def _rotated(x):
    a = []
    for i in range(x.shape[0]):
        a.append(x[i] * 2)
    return a[1:] + a[:1], [x[0]] + a[::2], len(a[1:])


def _while_counter_items(x, n):
    a = []
    i = 0
    while i < n:
        a.append(x + i)
        i += 1
    return a[0], a[-1]


def test_slices_of_a_loop_built_list_are_lists():
    sf = dy2st.to_static(_rotated, input_spec=[dy2st.InputSpec([None], "int32")])
    for n in (3, 4):
        x = rt.to_tensor(np.arange(1, n + 1, dtype="int32"))
        same(_rotated(x), sf(x))


def test_items_appended_with_a_python_int_counter_keep_their_dtype():
    sf = dy2st.to_static(_while_counter_items)
    x = rt.to_tensor(np.array([1, 2], "int32"))
    n = rt.full([1], 3, "int32")
    same(_while_counter_items(x, n), sf(x, n))


def _reads_before_append(x):
    key = []
    out = x[0]
    for i, v in enumerate(x):
        if i > 1:
            out = key[-2]
        key.append(v)
    return out


def test_empty_list_read_in_a_tensor_loop_names_the_list():
    with pytest.raises(IndexError, match="list 'key' is empty before a tensor-dependent loop") as info:
        dy2st.to_static(_reads_before_append)(rt.arange(0, 5))
    assert "out = key[-2]" in str(info.value)
