"""A tensor `while` whose condition writes into an object (`while s.more(y):` with `more` counting
its calls) is refused at the user's line: the `while` op's condition block is traced once and has
no outputs, so the count came out as the number of traces, not of evaluations."""
import numpy as np
import pytest

import dy2st
from tests.hunt.eager_checks import check, t


class _Stepper:
    def __init__(self):
        self.steps = 0

    def more(self, v):
        self.steps += 1
        return v.sum() < 10


def _counting_condition_method(x):
    s = _Stepper()
    y = x
    while s.more(y):
        y = y * 2
    return y * s.steps


def _counting_condition_closure(x):
    calls = [0]

    def more(v):
        calls[0] += 1
        return v.sum() < 10
    y = x
    while more(y):
        y = y * 2
    return y * calls[0]


def _counting_body(x):
    st = {"n": 0}
    y = x
    while y.sum() < 10:
        st["n"] = st["n"] + 1
        y = y * 2
    return y * st["n"]


X = np.array([1.0, 2.0], "float32")


@pytest.mark.parametrize("fn, what", [(_counting_condition_method, "s.steps"),
                                      (_counting_condition_closure, r"calls\[0\]")])
def test_condition_writing_into_an_object_is_refused_at_the_loop(fn, what):
    with pytest.raises(TypeError, match=f"condition of a tensor-dependent `while` writes into {what}") as info:
        dy2st.to_static(fn)(t(X))
    assert "while more(y):" in str(info.value) or "while s.more(y):" in str(info.value)


def test_the_same_count_kept_in_the_body_converts():
    check(_counting_body, [(t(X),), (t(X * 6),)], grad=True)
