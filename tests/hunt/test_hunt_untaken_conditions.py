"""A tensor `if` whose condition has several elements fails only when it runs, as eagerly (Paddle's
ifelse_simple_func.nested_if_else and NetWithControlFlowIf): inside a branch no input takes, such
an `if` was refused while building the Program, so code that runs eagerly could not convert."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from tests.compat.helpers import arr, check


def _nested(x):
    if x.mean() < 0:
        y = F.relu(x * 10)
        if y.numpy()[0] < 10:  # a row: ambiguous, but only reached for a negative mean
            y = y + 1
        if y > 1:
            y = y * 2
    else:
        y = x - 1
    return y


def test_untaken_multi_element_conditions_convert():
    check(_nested, (arr(4, 3, lo=0.1),), (arr(2, 5, seed=1, lo=0.0, hi=3.0),), grad=True)


def test_reached_multi_element_condition_fails_at_the_users_line():
    sf = dy2st.to_static(_nested)
    x = rt.to_tensor(arr(4, 3, lo=-2.0, hi=-0.5))
    with pytest.raises(ValueError):
        _nested(x)
    with pytest.raises(ValueError, match=r"exactly one element, got shape \[3\].*ambiguous") as info:
        sf(x)
    assert "if y.numpy()[0] < 10" in "".join(info.value.__notes__)
    assert sf(rt.to_tensor(np.ones([2, 2], "float32"))).shape == [2, 2]  # the same Program still serves
