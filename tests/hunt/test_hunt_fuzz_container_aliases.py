"""Found while minimising the fuzzer's ``dict_branches`` programs: a list or dict that one side of a
tensor `if` rebinds to a new one and the other keeps, while another name holds the kept one too
(`b = a`, `d = {'in': inner}`). Eagerly a later write through the rebound name reaches that other
name when the keeping side ran; the merged value is a new container, so the converted function
silently lost the write (`b[0]` came back unchanged). It is refused at the `if` now, naming the
other holder; rebinding on both sides (the form the message suggests) matches eager execution."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import check


def _alias_of_a_rebound_list(x):  # minimal: eagerly b[0] is x + 1 when the condition is False
    a = [x]
    b = a
    if x.mean() > 0:
        a = [x * 2.0]
    a[0] = a[0] + 1.0
    return b[0]


def _nested_dict_held_by_a_name(x):
    inner = {"v": x}
    d = {"in": inner}
    if x.mean() > 0:
        d["in"] = {"v": x * 2.0}
    d["in"]["v"] = d["in"]["v"] + 1.0
    return inner["v"]


def _rebound_on_both_sides(x):
    a = [x]
    b = a
    if x.mean() > 0:
        a = [x * 2.0]
    else:
        a = [x - 1.0]
    a[0] = a[0] + 1.0
    return b[0] + a[0]


@pytest.mark.parametrize("fn, other", [(_alias_of_a_rebound_list, "which b also holds"),
                                       (_nested_dict_held_by_a_name, "which inner also holds")])
def test_a_container_rebound_on_one_side_and_held_by_another_name_is_refused(fn, other):
    with pytest.raises(ValueError, match=other) as info:
        dy2st.to_static(fn)(rt.to_tensor(-np.ones([2, 2], "float32")))
    assert "test_hunt_fuzz_container_aliases.py" in notes(info.value)


def test_rebinding_on_both_sides_matches_eager():
    x = np.array([[0.5, -1.0], [2.0, 0.25]], "float32")
    check(_rebound_on_both_sides, x, -x, grad=True, ops=("cond",))
