"""`assert x` on a tensor takes its truth value, as eager bool() does: one element is checked at
every run, any other known size is refused at the user's line (eager raises TypeError too)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _assert(x):
    assert x
    return x + 1


def test_assert_needs_one_element_like_eager():
    sf = dy2st.to_static(_assert)
    for a in ([2, 3], [0, 3]):
        x = rt.to_tensor(np.array(a))
        with pytest.raises(TypeError):
            _assert(x)
        with pytest.raises(TypeError, match="exactly one element") as info:
            sf(x)
        assert __file__ in str(info.value)
    for a, ok in (([1], True), ([0], False), ([[5]], True)):
        x = rt.to_tensor(np.array(a))
        if ok:
            assert sf(x).numpy().tolist() == _assert(x).numpy().tolist()
        else:
            with pytest.raises(AssertionError, match="line"):
                sf(x)
