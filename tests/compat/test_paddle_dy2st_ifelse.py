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


def _number_or_scalar(number, dtype):
    def f(x):
        if x.sum() > 0:
            return number
        return (x * 3).sum().astype(dtype)
    return f


@pytest.mark.parametrize("number,dtype", [(1, "float32"), (2, "float64"), (3, "int32"), (1.5, "float64"),
                                          (-4, "int64"), (0.25, "float32")])
def test_python_number_against_0d_tensor_takes_its_dtype(number, dtype):
    f = _number_or_scalar(number, dtype)
    sf = dy2st.to_static(f)
    for v in ([0.5, 1.0], [-2.0, 0.5]):
        e, s = f(rt.to_tensor(v)), sf(rt.to_tensor(v))
        assert rt.is_tensor(s) and str(s.dtype) == dtype and s.shape == []
        assert s.item() == (e if not rt.is_tensor(e) else e.item())
    assert len(sf.program_cache) == 1


def _count_or_mean(x):
    idx = 0
    if x.mean() > 0:
        idx = idx + 1
        return idx
    y = x[idx] * 2
    return y


def test_paddle_ret_int_case_and_gradient():
    sf = check(_count_or_mean, (arr(5, lo=0.1, hi=1.0),), (arr(5, lo=-1.0, hi=-0.1),))
    x = rt.to_tensor(arr(5, lo=-1.0, hi=-0.1), stop_gradient=False)
    sf(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 0, 0, 0, 0])


@pytest.mark.parametrize("number,dtype,shape", [(1.5, "int32", []), (2 ** 25 + 1, "float32", []),
                                                (1, "float32", [2])])
def test_number_that_does_not_fit_is_refused(number, dtype, shape):
    def f(x):
        if x.sum() > 0:
            r = number
        else:
            r = rt.ones(shape, dtype)
        return r
    with pytest.raises(ValueError, match="disagree"):
        dy2st.to_static(f)(rt.to_tensor([1.0]))
