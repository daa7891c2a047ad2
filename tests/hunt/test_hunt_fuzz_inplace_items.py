"""Found by the fuzzer's ``inplace_branches`` grammar: an in-place method called on a list or dict
item (``acc[0].scale_(c)``) under a tensor condition was refused, with a message telling to call it
as a statement of its own, which it was. The item's tensor now takes the write, and every holder of
that tensor sees it (the list, the dict and the name it was made under), as eagerly; in a tensor
loop, which cannot carry such a write, the refusal names the construct at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import check


def _list_item_scaled(x):  # the fuzzer's minimal program (seed 101)
    y = x * 1.0
    acc = [y, x]
    if x.max() > 0.5:
        acc[0].scale_(2.0)
    return y + acc[0] * 10.0


def _dict_item_both_sides(x):
    y = x * 1.0
    d = {"a": y}
    if x.max() > 0.5:
        d["a"].clip_(-0.5, 0.5)
    else:
        d["a"].tanh_()
    return y, d["a"]


def _item_method_result_bound(x):
    y = x * 1.0
    acc = [y]
    if x.max() > 0.5:
        z = acc[0].scale_(3.0)
    else:
        z = acc[0].add_(y)
    return y + z


def _item_method_in_tensor_loop(x, n):
    y = x * 1.0
    acc = [y, x]
    for _ in range(n):
        acc[0].add_(x)
    return y


@pytest.mark.parametrize("fn", [_list_item_scaled, _dict_item_both_sides, _item_method_result_bound])
def test_an_in_place_method_on_a_container_item_in_a_branch_reaches_every_holder(fn):
    x = np.array([[0.25, 1.5], [-0.75, 2.0]], "float32")
    check(fn, x, x - 2.0, grad=True, ops=("cond",))


def test_an_in_place_method_on_an_item_in_a_tensor_loop_is_refused_at_the_users_line():
    with pytest.raises(TypeError, match=r"acc\[0\]\.add_\(v\)") as info:
        dy2st.to_static(_item_method_in_tensor_loop)(rt.ones([2, 2]), rt.to_tensor(2, dtype="int64"))
    assert "acc[0].add_(x)" in notes(info.value)
