"""Python numbers inside a tuple, dict or list that a tensor loop (or `if`) carries item by item (`st = (n, acc,
seen)`): eagerly they stay Python numbers. They were carried as plain int64/bool/float32 tensors, so
`st[0] / 3` was a float32 quotient, `st[2] + st[2]` of two bools a logical or, and a float summed in
float32; they now keep Python's arithmetic and a float its double precision, as a number carried by
itself does. A number the body makes a tensor stays a tensor (a float) or refuses `/` (an int)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _tuple_state(x):
    st = (0, 0.1, False)
    while rt.sum(x) < 10:
        x = x + 1
        st = (st[0] + 1, st[1] * 3, st[0] > 0)
    return x * (st[0] / 3) + x * st[1] + (st[2] + st[2])


def _dict_state(x):
    d = {"n": 0, "acc": 0.1, "seen": [0, 1]}
    while rt.sum(x) < 10:
        x = x + 1
        d = {"n": d["n"] + 1, "acc": d["acc"] * 3, "seen": [d["seen"][0] + 1, d["seen"][1]]}
    return x * (d["n"] / 3) + x * d["acc"] + x * (d["seen"][0] / 7)


def _float_made_a_tensor(x):
    st = (0.0, 0)
    while rt.sum(x) < 10:
        x = x + 1
        st = (st[0] + x.mean(), st[1] + 1)
    return x * st[0] + st[1] / 3


def _branch_state(x):
    st = (0, 0.1, False)
    if x.sum() > 3:
        st = (st[0] + 2, st[1] * 3, True)
    else:
        st = (st[0] + 1, st[1] * 7, False)
    return x * (st[0] / 3) + x * st[1] + (st[2] + st[2])


@pytest.mark.parametrize("fn", [_tuple_state, _dict_state, _float_made_a_tensor, _branch_state])
def test_numbers_in_carried_containers_match_eager(fn):
    check(fn, [(t(np.full([3], v), "float64"),) for v in (0.5, 2.0, 3.0, 12.0)])


def _int_made_a_tensor(x):
    st = (0, x.sum())
    while rt.sum(x) < 10:
        x = x + 1
        st = (st[0] + x.argmax(), st[1])
    return x * (st[0] / 3)


def test_int_made_an_int_tensor_refuses_true_division():
    with pytest.raises(TypeError, match="Python int on some paths") as info:
        dy2st.to_static(_int_made_a_tensor)(t([1.0, 2.0]))
    assert "return x * (st[0] / 3)" in str(info.value)
