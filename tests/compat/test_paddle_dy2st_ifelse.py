"""Scenarios of Paddle's test_ifelse on the values a tensor-dependent `if` returns: a Python number
both paths give stays a Python number, as in eager code."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check


def _both_return_count(x):
    # both branches return the same Python number next to a tensor: it stays a Python int
    k = 0
    if x.sum() > 0:
        k = k + 1
        return x * 2, k
    else:
        k = k + 1
        return x - 1, k


def _different_counts(x):
    n = 0
    if x.mean() > 0:
        n = 1
        return x + 1, n, {"n": 3}
    return x - 1, n + 2, {"n": 3}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_python_numbers_in_returned_tuple_stay_python(seed):
    x = arr(4, seed=seed)
    sf = check(_both_return_count, (x,), grad=True)
    out = sf(rt.to_tensor(x))
    assert type(out[1]) is int and out[1] == 1
    assert len(sf.program_cache) == 1


@pytest.mark.parametrize("lo,hi", [(0.1, 1.0), (-1.0, -0.1)])
def test_numbers_differing_by_branch_become_tensors(lo, hi):
    x = arr(3, lo=lo, hi=hi)
    sf = dy2st.to_static(_different_counts)
    a, n, d = sf(rt.to_tensor(x))
    e_a, e_n, e_d = _different_counts(rt.to_tensor(x))
    np.testing.assert_array_equal(a.numpy(), e_a.numpy())
    assert rt.is_tensor(n) and int(n) == e_n  # path-dependent: a graph value
    assert d == {"n": 3} and type(d["n"]) is int  # the same on both paths: Python
