"""`y.stop_gradient = True` and then `= False` again: eagerly the flag only decides whether the ops
in between record a gradient edge to `y`; the ops after it reach what `y` came from again (Paddle
too). The converted code gave the cut value to both, so the gradient of the second use was lost."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import arr, check


def _toggle(x):
    y = x * 2
    y.stop_gradient = True
    y.stop_gradient = True
    z = y * x
    y.stop_gradient = False
    return z + y * x


def _toggle_around_branch(x):
    y = x * 2
    y.stop_gradient = True
    z = y * x
    if x.sum() > 0:
        z = z * 2
    y.stop_gradient = False
    return z + y * x


def _toggle_item(x):
    out = [x * 2, x * 3]
    out[0].stop_gradient = True
    z = out[0] * x
    out[0].stop_gradient = False
    return z + out[0] * x + out[1]


def _cut_then_new_value(x):
    y = x * 2
    for _ in range(rt.shape(x)[0]):
        y = y * x
        y.stop_gradient = True
        y = y + 1
        y.stop_gradient = False  # a new value: eagerly a leaf, no path back to x
    return y * x


def _cut_in_branch(x):
    y = x * 2
    if x.sum() > 0:
        y.stop_gradient = True
    z = y * x
    y.stop_gradient = False
    return z + y * x


def test_setting_stop_gradient_back_reconnects_the_gradient():
    for fn in (_toggle, _toggle_around_branch, _toggle_item, _cut_then_new_value):
        check(fn, (arr(2, 3),), (-arr(2, 3, seed=1),), grad=True)


def test_setting_it_back_after_a_cut_inside_a_tensor_branch_is_refused_at_the_users_line():
    with pytest.raises(ValueError, match="stop_gradient = False") as info:
        dy2st.to_static(_cut_in_branch)(rt.to_tensor(np.ones(3, "float32"), stop_gradient=False))
    where = notes(info.value)
    assert "test_hunt_stop_gradient_toggle.py" in where and "y.stop_gradient = False" in where
