"""A Python int that a tensor `if` (or loop) turns into a tensor keeps Python's arithmetic.

`n = 3 if x.sum() > 0 else 7` makes `n` a `cond` output, an int64 Variable; eagerly it is an
int, so `n / 2` is true division, `n ** -1` a float, and `//`/`%` of negatives floor toward
minus infinity.  Each case runs the converted function and the original on several inputs.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt


def t(a):
    return rt.to_tensor(np.asarray(a, "float32"))


def as_floats(values):
    return [float(v) for v in values]


INPUTS = ([1.0], [-1.0], [2.5], [-3.0])


def int_from_cond_divides_truly(x):
    if x.sum() > 0:
        n = 3
    else:
        n = -7
    return [n / 2, n / -2, 10 / n, n / 2.0, 2.0 / n, -n / 3, abs(n) / 2, (n + 1) / 2, (n * 2) / 4,
            n ** 2, n ** -1, x.sum() * (n / 2)]


def int_from_ternary_divides_truly(x):
    n = 5 if x.mean() > 0 else 4
    return [n / 4, (n - 9) / 4]


def floor_division_and_modulo_of_negatives(x):
    n = -7 if x.sum() > 0 else 5
    return [n // 3, n % 3, n // -3, n % -3, 7 % n, 7 // n, -7 // n, -7 % n, n // 2 * 2 + n % 2]


def int_through_cond_then_loop_then_cond(x):
    n = 3 if x.sum() > 0 else 1
    i = 0
    while x.sum() > i:
        n = n + 1
        i += 1
    out = [n / 2]
    for k in range(2):
        m = n
        if x.mean() > k:
            m = n + 1
        out.append(m / 4)
    return out


@pytest.mark.parametrize("fn", [int_from_cond_divides_truly, int_from_ternary_divides_truly,
                                floor_division_and_modulo_of_negatives,
                                int_through_cond_then_loop_then_cond])
def test_python_int_made_a_tensor_by_control_flow_keeps_python_arithmetic(fn):
    sf = dy2st.to_static(fn)
    for v in INPUTS:
        want, got = as_floats(fn(t(v))), as_floats(sf(t(v)))
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_genuine_int_tensor_from_cond_keeps_tensor_division():
    # An int tensor (not a Python int) in both branches divides as int tensors do eagerly.
    def f(x, k):
        n = k * 1
        if x.sum() > 0:
            n = k - 10
        return n / 4, n // 3, n % 3

    sf = dy2st.to_static(f)
    for v in ([1.0], [-1.0]):
        for k in (5, -5):
            want = [a.numpy() for a in f(t(v), rt.to_tensor(k))]
            got = [a.numpy() for a in sf(t(v), rt.to_tensor(k))]
            for a, b in zip(got, want):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)
