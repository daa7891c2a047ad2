"""A Python int a tensor loop carries (a counter) is an int64 Variable standing for the int: its
operators must give what Python's int gives eagerly. `i << 2` and `j >> 1` were a bare TypeError,
`True / n` and `n + True` took the int64 tensor's rules (a float32 quotient; a Python-int carry
turned "mixed" and refused `/`), and `1 / i if i else 0` merged the two paths in float32 where eager
code holds a double-precision Python float."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _shifts(x):
    i, j = -7, 0
    while rt.sum(x) < 10:
        x = x + 1
        i += 3
        j -= 2
    return x * 0 + (i << 2) + (j >> 1) + (5 >> (i > 0))


def _bool_operands(x):
    n, c = 0, 0
    while rt.sum(x) < 10:
        x = x + 1
        n += 1
        c += True
    return x * (True / (1 + n)) + c / 3


def _float_or_int(x):
    i = 5
    while rt.sum(x) < 10:
        x = x + 1
        i += 1
    r = i ** -1 if i != 7 else 0  # 1/6, 1/5, 1/10: not float32 numbers
    return x * r


@pytest.mark.parametrize("fn", [_shifts, _bool_operands, _float_or_int])
def test_python_int_operators_match_eager(fn):
    check(fn, [(t(np.full([2], v), "float64"),) for v in (0.5, 3.0, 4.0, 12.0)])


def _negative_shift(x):
    i = -1
    while rt.sum(x) < 10:
        x = x + 1
        i += 1
    return x * (1 << i)


def test_negative_shift_count_raises_at_run_time():
    sf = dy2st.to_static(_negative_shift)
    np.testing.assert_array_equal(sf(t([4.0, 4.0])).numpy(), _negative_shift(t([4.0, 4.0])).numpy())
    with pytest.raises(ValueError, match="negative shift count"):
        _negative_shift(t([5.0, 5.0]))
    with pytest.raises(ValueError, match="negative shift count"):  # the same Program, at run time
        sf(t([5.0, 5.0]))
