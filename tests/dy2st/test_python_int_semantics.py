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


def test_int_of_a_traced_value_and_unknown_dims_divide_truly():
    def f(x, k):
        return int(k) / 2, int(x.sum()) / 4, 7 / int(k)

    sf = dy2st.to_static(f)
    for v, k in (([1.0, 2.0], 5), ([3.0, 4.0], -3)):
        want = as_floats(f(t(v), rt.to_tensor(k)))
        np.testing.assert_allclose(as_floats(sf(t(v), rt.to_tensor(k))), want, rtol=1e-6)

    @dy2st.to_static(input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    def g(x):
        b = x.shape[0]
        return b / 2, len(x) / 4, x.sum() / b

    for rows in (3, 5):
        x = rt.ones([rows, 3])
        np.testing.assert_allclose(as_floats(g(x)), [rows / 2, rows / 4, 3.0], rtol=1e-6)


def int_or_tensor_by_branch(x, k):
    if x.sum() > 0:
        n = 3
    else:
        n = k
    return n / 2


def int_or_tensor_by_trip_count(x, k):
    n = 3
    i = 0
    while i < k:
        n = n + k
        i += 1
    return n / 2


@pytest.mark.parametrize("fn", [int_or_tensor_by_branch, int_or_tensor_by_trip_count])
def test_true_division_of_an_int_that_is_a_tensor_on_some_paths_is_refused_at_the_line(fn):
    # Eagerly `/` gives a float on one path and an int tensor's division on the other: no one
    # Program can be both, so converting refuses it, naming the line.
    with pytest.raises(TypeError, match=r"Python int on some paths(.|\n)*return n / 2"):
        dy2st.to_static(fn)(t([1.0]), rt.to_tensor(2))


def test_same_int_arithmetic_on_either_path_still_converts():
    def f(x, k):
        n = 3 if x.sum() > 0 else k
        return n * 2 + 1, n // 2, n % 2, -n

    sf = dy2st.to_static(f)
    for v in ([1.0], [-1.0]):
        for k in (5, -4):
            want = [int(a) for a in f(t(v), rt.to_tensor(k))]
            assert [int(a) for a in sf(t(v), rt.to_tensor(k))] == want
