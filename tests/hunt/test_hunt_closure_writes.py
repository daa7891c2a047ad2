"""What a nested function writes into a captured list or dict, called in a tensor-dependent loop or
`if`, follows the loop or branch as if the body wrote it; what the converter cannot see is refused
with a message instead of a Program that cannot run."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check


def _closure_in_loop_and_branch(x, n):
    c = [x * 0]
    d = {"v": x}

    def inc(v):
        c[0] = c[0] + v

    def setv(v):
        d["v"] = v
    for i in range(n):
        inc(x)
    while c[0].abs().sum() < 4:  # no carry but what the call writes
        inc(x)
    if x.sum() > 0:
        setv(x * 2)
    else:
        setv(x * 3)
    return c[0], d["v"]


def test_nested_function_writes_follow_loops_and_branches():
    check(_closure_in_loop_and_branch, (arr(2, lo=0.5, hi=1), np.array(3)),
          (arr(2, lo=-1, hi=-0.5), np.array(1)), grad=True)


def _closure_from_elsewhere(x, n):
    def make():
        c = [x * 0]

        def inc(v):
            c[0] = c[0] + v
        return c, inc
    c, inc = make()
    for i in range(n):
        inc(x)
    return c[0]


def _mixed_list_carry(x):
    st = [x * 0, 0]
    while st[0].sum() < 5:
        st.append(st[0] + x)  # grown: carried as one stacked tensor, which these items cannot be
    return st[0]


def test_closure_made_elsewhere_is_followed_through_its_cells():
    # `inc` comes back from `make()`: only its own closure says it writes `c`
    check(_closure_from_elsewhere, (arr(2, lo=0.5, hi=1), np.array(3)), (arr(2), np.array(0)), grad=True)


def test_mixed_list_carries_are_refused_by_name():
    x = rt.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="list 'st' is carried .* its items differ") as info:
        dy2st.to_static(_mixed_list_carry)(x)
    assert "while st[0].sum() < 5" in str(info.value)
