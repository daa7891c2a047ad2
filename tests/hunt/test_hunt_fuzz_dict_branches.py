"""Found by the fuzzer's ``dict_branches`` grammar: a nested dict written in place on one side of a
tensor `if` and replaced by a new dict on the other was refused with a message that showed two
dicts of the same keys, shapes and dtypes and said they disagree. Eagerly the name then holds the
old object or the new one (an alias of the old one sees which), which one Program value cannot stand
for: the refusal stays, at the `if`, and now says why and what to write instead; both ways it
suggests convert and match eager execution."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import check


def _written_or_replaced(x):  # the fuzzer's minimal program (dict_branches seed 101)
    d = {"in": {"v": x}, "n": 0}
    if x.mean() > 0:
        d["in"]["v"] = x * 2.0
    else:
        d["in"] = {"v": x + 1.0}
    return d["in"]["v"]


def _written_in_both(x):
    d = {"in": {"v": x}, "n": 0}
    if x.mean() > 0:
        d["in"]["v"] = x * 2.0
        d["n"] = 1
    elif x.sum() < -1.0:
        d["in"]["v"] = x + 1.0
        d["n"] = 2
    return d["in"]["v"] + d["n"] * 0.5


def _replaced_in_both(x):
    d = {"in": {"v": x}}
    if x.mean() > 0:
        d["in"] = {"v": x * 2.0}
    else:
        d["in"] = {"v": x + 1.0}
    return d["in"]["v"]


def test_a_dict_written_on_one_side_and_replaced_on_the_other_is_refused_saying_why():
    with pytest.raises(ValueError, match="writes into the dict held before the `if`, the other makes a new dict") as info:
        dy2st.to_static(_written_or_replaced)(rt.ones([2, 2]))
    assert "test_hunt_fuzz_dict_branches.py\", line 18" in notes(info.value)  # the `if`


@pytest.mark.parametrize("fn", [_written_in_both, _replaced_in_both])
def test_the_suggested_forms_match_eager(fn):
    x = np.array([[0.5, -1.0], [2.0, 0.25]], "float32")
    check(fn, x, -x, x - 1.0, grad=True, ops=("cond",))
