"""Python ints known only when the Program runs are int64 there, where eager Python's grow without
bound: a result past 2**63 is an OverflowError at the user's line instead of a silently wrapped int."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def t(v):
    return rt.to_tensor(np.array(v, "int64"))


def product(a, b):
    p = int(a) * int(b)
    return p - int(b), -p, abs(p), p ** 2 if abs(p) < 2 ** 31 else p


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_python_int_arithmetic_matches_or_overflows_loudly():
    sf = dy2st.to_static(product)
    for a, b in [(3, 5), (-7, 2 ** 40), (2 ** 31 - 1, -(2 ** 31)), (2 ** 62, 1)]:
        assert sf(t(a), t(b)) == product(t(a), t(b))
    for a, b in [(2 ** 62, 2), (-(2 ** 40), 2 ** 40), (3 ** 39, 3)]:
        with pytest.raises(OverflowError, match="went past int64") as info:
            sf(t(a), t(b))
        assert "p = int(a) * int(b)" in str(info.value)
        assert abs(product(t(a), t(b))[0]) >= 2 ** 63 - 2 ** 41  # eagerly a Python int past int64
    assert sf.get_traced_count() == 1


def powers(x, n):
    k = 1
    i = 0
    while i < n:  # a tensor loop: k is carried as an int64 standing for a Python int
        k = k * 3
        i += 1
    return x + 1, k


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # numpy's, on the wrapped scalar
def test_carried_python_int_overflow_is_loud():
    sf = dy2st.to_static(powers)
    x = rt.to_tensor(np.ones(2, "float32"))
    for n in (0, 5, 39):
        assert sf(x, t(n))[1] == powers(x, t(n))[1] == 3 ** n
    for n in (40, 45):
        with pytest.raises(OverflowError, match="k = k \\* 3"):
            sf(x, t(n))
    assert sf.get_traced_count() == 1
