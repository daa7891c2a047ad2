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


def _methods(x, n):
    a = _filled(x, n)
    a.insert(-1, x * 100)
    a.extend([x * 7])
    b = a.copy()
    b.reverse()
    return a[0], a[-2], b[0], len(a * 2)


def _mutated_in_branches(x, n):
    a = _filled(x, n)
    if x.sum() > 2:
        a.append(x * 5)
    else:
        a.insert(0, x * 6)
        a.pop()
    for i in range(n):
        if a[-1].sum() > 4:
            a.clear()
        a.append(x * 0.5 + i)
    return a[0], a[-1], len(a)


def test_list_methods_and_branch_mutations_match_eager():
    x1, x2 = np.float32([1, 2]), np.float32([0.5, 0.2])
    check(_methods, (x1, np.array(3)), (x2, np.array(1)), grad=True)
    check(_mutated_in_branches, (x1, np.array(3)), (x2, np.array(2)), (x2 * 4, np.array(4)), grad=True)


def _slice_assigned(x, n):
    a = _filled(x, n)
    a[0:2] = [x * 10]
    a[:0] = [x * 20, x * 30]
    a[-1:] = []
    a[2:1] = [x * 40]  # inserts at 2
    return a[0], a[1], a[2], a[-1], len(a)


def test_slice_assignment_replaces_items_as_a_list_does():
    check(_slice_assigned, (np.float32([1, 2]), np.array(3)), (np.float32([3, 1]), np.array(4)), grad=True)
    with pytest.raises(TypeError, match="slice assignment"):
        dy2st.to_static(_reversed_bounds)(rt.ones([2]), rt.full([1], 3, "int32"))


def _reversed_bounds(x, n):
    a = _filled(x, n)
    a[-1:2] = [x]  # which items go depends on the run-time length: refused
    return a[0]
