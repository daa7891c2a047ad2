"""Python float accumulators across tensor-dependent loops and `if`s (`acc += 0.1`): eager code
sums a Python float in float64; the Program carried it as a default-dtype (float32) tensor and
summed in float32, so `x * acc` drifted from eager (0.70000005 for 0.7), silently. Such carries
are now float64; user code sees a default-dtype view of them (what an API given the Python float
makes of it), whose operators, comparisons, int()/bool()/print and truth use the float64 value."""
import numpy as np

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check as _check, t as _t


def _while_sum(x, n):
    acc = 0.0
    i = rt.to_tensor(0, "int64")
    while i < n:
        acc += 0.1
        x = x + x * acc  # a marked float meets the float32 tensor as a Python float would
        i = i + 1
    return x * acc


def _rows_sum(x):
    acc = 0.0
    for v in x:
        if v > 0:
            acc += 0.1
    return x * acc


def _unrolled_if_sum(x):
    acc = 0.0
    for k in range(7):
        if x.sum() > k:
            acc += 0.1
    return x * acc


def _int_halved(x, n):
    k = 1
    i = rt.to_tensor(0, "int64")
    while i < n:
        k = k / 3 + 0.1  # a Python int the loop turns into a Python float
        i = i + 1
    return x * k


def _becomes_tensor(x, n):
    s = 0.0
    i = rt.to_tensor(0, "int64")
    while i < n:
        s = s + x * 0.1  # a genuine float32 tensor from the first iteration on
        i = i + 1
    return s


def test_python_float_accumulators_sum_as_eager_does():
    sf = _check(_while_sum, [(_t([1.0, 3.0]), _t(n, "int64")) for n in (7, 10, 3, 0)], grad=True)
    assert len(sf.program_cache) == 1
    sf = _check(_rows_sum, [(_t([0.3] * 9),), (_t([-1.0] * 9),), (_t([0.5, -2.0] * 4 + [1.0]),)], grad=True)
    assert len(sf.program_cache) == 1
    sf = _check(_unrolled_if_sum, [(_t([10.0]),), (_t([3.5]),), (_t([-1.0]),)], grad=True)
    assert len(sf.program_cache) == 1
    sf = _check(_int_halved, [(_t([1.0, 3.0]), _t(n, "int64")) for n in (5, 1, 0)], grad=True)
    assert len(sf.program_cache) == 1
    sf = _check(_becomes_tensor, [(_t([1.0, 3.0]), _t(n, "int64")) for n in (7, 2)], grad=True)
    assert len(sf.program_cache) == 1


def test_float64_tensors_meet_the_float_as_eager():
    x64 = _t([0.3, 1.0 / 3], "float64")
    sf = _check(_while_sum, [(x64, _t(n, "int64")) for n in (7, 2)])
    assert sf(x64, _t(3, "int64")).dtype == rt.float64


def test_float_of_a_tensor_carried_keeps_its_value():
    def f(x, n):
        acc = float(x[0])
        i = rt.to_tensor(0, "int64")
        while i < n:
            acc = acc * 1.1 + 0.1
            i = i + 1
        return x * acc
    sf = dy2st.to_static(f)
    for a in ([0.3, 1.0], [1.0 / 3, 2.0]):
        np.testing.assert_array_equal(sf(_t(a), _t(6, "int64")).numpy(), f(_t(a), _t(6, "int64")).numpy())


def _float_ops(x, n):
    a, b, c = -0.5, 1.1, 0.3
    i = rt.to_tensor(0, "int64")
    while i < n:
        a = (a - 0.7) % 0.3 - 0.45
        b = b ** 1.3 + 0.01
        c = min(-abs(c) * 1.7, 2.1) + max(0.01, c / 10)
        i = i + 1
    return x * a + x * b + x * c + round(b * 2.5)


def test_python_float_operators_in_a_tensor_loop_match_eager():
    # %, ** and abs drifted in float32; min/max and round were refused on the unmarked tensor
    sf = _check(_float_ops, [(_t([1.0, 2.0]), _t(n, "int64")) for n in (5, 0, 2)], grad=True)
    assert len(sf.program_cache) == 1


def _compares(x, n):
    acc = 0.1
    i = rt.to_tensor(0, "int64")
    while i < n:
        acc = acc + 0.2  # 0.30000000000000004: float32(acc) == float32(0.3), as eager compares
        i = i + 1
    r = x * 1
    if acc < x.sum():
        r = r + 1
    if x.sum() > acc:
        r = r + 10
    if acc >= x[0]:
        r = r + 100
    while acc < x.sum():
        acc = acc + 0.2
        r = r + 1000
    return r


def test_a_python_float_compared_with_a_tensor_takes_its_dtype():
    sf = _check(_compares, [(_t([a]), _t(n, "int64")) for a, n in ((0.3, 1), (0.3, 0), (0.1, 0), (0.9, 1))])
    assert len(sf.program_cache) == 1


def _api_arguments(x, n):
    acc = 0.1
    i = rt.to_tensor(0, "int64")
    while i < n:
        acc = acc + 0.2
        i = i + 1
    # an API given a Python float takes it in the default float dtype: so does the carried one
    return rt.add(x, acc), rt.to_tensor(acc), x.pow(acc), rt.where(x > 0.2, x, acc), rt.to_tensor([acc]) * x


def test_a_carried_python_float_passed_to_apis_is_the_eager_float():
    sf = _check(_api_arguments, [(_t([0.3, 0.1]), _t(n, "int64")) for n in (1, 0, 3)])
    assert len(sf.program_cache) == 1


def _casts(x, n):
    acc = 2.0
    i = rt.to_tensor(0, "int64")
    while i < n:
        acc = acc + 0.99999999  # 2.99999999: 3.0 in float32
        i = i + 1
    print("acc", acc)
    return x * int(acc), x * float(acc), x * round(acc), x * (acc // 1), x * bool(acc - 2.99999999)


def test_int_bool_and_print_of_a_carried_float_use_its_float64_value(capsys):
    sf = _check(_casts, [(_t([0.3, 0.1]), _t(n, "int64")) for n in (1, 0, 3)])
    assert len(sf.program_cache) == 1
    lines = capsys.readouterr().out.split("\n")
    assert lines[:6] == ["acc 2.99999999", "acc 2.99999999", "acc 2.0", "acc 2.0", "acc 4.99999997", "acc 4.99999997"]


def test_a_python_int_divided_in_a_tensor_loop_is_the_float64_quotient():
    def f(x, n):
        k = 1
        i = rt.to_tensor(0, "int64")
        while i < n:
            k = k / 3 + 0.1  # the first `/` was a float32 quotient, summed on in float32
            i = i + 1
        return x * k
    sf = _check(f, [(_t([0.3, 0.1]), _t(n, "int64")) for n in (1, 0, 3, 5)])
    assert len(sf.program_cache) == 1


def test_the_truth_of_a_carried_float_is_that_of_its_float64_value():
    def f(x, n):
        acc = 1e-50  # 0 in float32
        i = rt.to_tensor(0, "int64")
        while i < n:
            acc = acc * 0.5
            i = i + 1
        if acc:
            x = x + 1
        y = x * 2 if acc else x * 3
        if not acc or acc > 1e-60:
            x = x + 10
        return x + y
    sf = _check(f, [(_t([0.3, 0.1]), _t(n, "int64")) for n in (1, 0, 3)])
    assert len(sf.program_cache) == 1
