"""``del name`` inside a converted branch or loop body deletes the caller's binding, as eagerly.

A branch became a nested function in which ``del y`` made ``y`` a local without a value: tracing
raised UnboundLocalError on a branch that eager never took.  ``del`` now counts as a use of the
name's value, so the name comes into the branch function as a parameter.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check


def delete_in_branch(x):
    y = x * 2
    if x.sum() > 100:
        del y
    return x + 1


def delete_then_rebind(x):
    y = x
    if x.sum() > 0:
        del y
        y = x * 3
    return y - 1


def delete_in_loop(x):
    i = 0
    while x.sum() > i:
        t = x * i
        del t
        i += 1
    return x * i


@pytest.mark.parametrize("fn", [delete_in_branch, delete_then_rebind, delete_in_loop])
def test_del_matches_eager(fn):
    check(fn, [np.array([1.0, -2.0, 3.0], "float32")], [np.array([-1.0, -2.0, 0.5], "float32")],
          [np.array([60.0, 50.0, 0.0], "float32")], grad=True)


def test_reading_a_name_deleted_in_one_branch_is_an_error_at_the_users_line():
    def f(x):
        y = x
        if x.sum() > 100:
            del y
        return y
    with pytest.raises(UnboundLocalError) as info:
        dy2st.to_static(f)(rt.to_tensor(np.ones(2, "float32")))
    assert "test_hunt_del_in_branches.py" in str(info.value.__notes__ if hasattr(info.value, "__notes__") else "") \
        or "test_hunt_del_in_branches.py" in str(info.value)
