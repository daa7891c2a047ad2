"""`and`/`or` over tensors of several elements are refused like eager bool() refuses them (Paddle's
test_logical.py shapes): converted, `(x > 0) and (y > 0)` became an elementwise logical_and
(eager raises), and `flag and (y > 0)` a mask broadcast to y's shape where eager returns the 0-d
`flag` when it is False; `not mask` likewise. One-element operands convert as before."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _both_masks(x, y):
    return (x > 0) and (y > 0)


def _flag_then_mask(x, y):
    return (x.sum() > 0) or (y > 0)


def _negated_mask(x, y):
    return not (x > y)


def _scalars(x, y):
    z = (x.sum() > 0) and not (y.mean() < 1)
    if (x.max() > 0.5) or (y.sum() > 0):
        return x * 2, z
    return x, z


def test_several_elements_are_refused_at_the_users_line():
    x, y = rt.to_tensor([1.0, -1.0]), rt.to_tensor([2.0, 3.0])
    for fn, match in ((_both_masks, r"`and` takes the truth value .*shape \[2\]"),
                      (_negated_mask, r"`not` takes the truth value .*shape \[2\]"),
                      (_flag_then_mask, r"`or` between .* bool tensor of shape \[2\]")):
        if fn is not _flag_then_mask:
            with pytest.raises(TypeError):
                fn(x, y)  # eager bool() refuses it too
        with pytest.raises(TypeError, match=match) as info:
            dy2st.to_static(fn)(x, y)
        assert "test_hunt_logical_sizes.py" in str(info.value)


def test_one_element_operands_still_convert():
    a = np.array([0.2, -0.4], "float32")
    check(_scalars, (a, a), (-a, a * 3), (a * 4, -a), grad=True)
