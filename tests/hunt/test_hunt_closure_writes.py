"""What a nested function writes into a captured list or dict, called in a tensor-dependent loop or
`if`, follows the loop or branch as if the body wrote it."""
import numpy as np

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
