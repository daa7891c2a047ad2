"""Python bools a converted function holds as Variables (`bool(t)`, `not t`, a flag a tensor loop or
`if` sets): eagerly `bool(a > 0) + bool(b > 0)` counts (2), `found + found` is 2 and `~found` is -2;
the Program added them as bool tensors (a logical or: True) and inverted logically, silently, so
`x * (found + found)` came out as x. Their arithmetic is now Python's int arithmetic, while a bool
tensor (or a flag the loop makes one) keeps its tensor meaning."""
import numpy as np

import dy2st
import runtime as rt
from tests.hunt.eager_checks import t


def _counts(x):
    c = bool(x.sum() > 2) + bool(x.mean() > 1)
    found = False
    for v in x:
        if v > 2:
            found = True
    if x.max() > 0:
        flag = True
    else:
        flag = False
    n = not x.any()
    return x * c + x * (found + found) + (flag + flag) + (n + n), ~found, -bool(x.sum() > 2), found / 2


def _tensors(m, x):
    f = False
    for v in x:
        f = v > 2  # a bool tensor from the first iteration on
    return m + m, f


def _printed(x):
    found = False
    for v in x:
        if v > 2:
            found = True
    print("found", found, bool(x.sum() > 0), not found)
    return x


def _num(v):
    return v.numpy().tolist() if rt.is_tensor(v) else v


def test_python_bool_arithmetic_counts():
    sf = dy2st.to_static(_counts)
    for vals in ([1.0, 3.0], [0.0, 0.0], [-1.0, 0.5]):
        x = t(vals)
        assert [_num(v) for v in sf(x)] == [_num(v) for v in _counts(x)]


def test_bool_tensors_keep_their_meaning():
    sf = dy2st.to_static(_tensors)
    for m, vals in ((True, [1.0, 3.0]), (False, [3.0, 1.0])):
        args = (t(m, "bool"), t(vals))
        for e, s in zip(_tensors(*args), sf(*args)):
            assert str(s.dtype) == str(e.dtype) == "bool"
            np.testing.assert_array_equal(s.numpy(), e.numpy())


def test_python_bools_print_as_python_prints_them(capsys):
    x = t([1.0, 3.0])
    _printed(x)
    eager = capsys.readouterr().out
    dy2st.to_static(_printed)(x)
    assert capsys.readouterr().out == eager == "found True True False\n"
