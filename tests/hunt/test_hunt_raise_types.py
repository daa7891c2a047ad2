"""`raise ValueError("...")` under a tensor-dependent condition becomes a run-time check; it raised
an AssertionError("ValueError: ..."), so code catching `ValueError` around the call (as it does
eagerly) missed it. A built-in exception now keeps its type; the user's line is in the message.
A user-defined exception class is still an AssertionError naming it (the Program cannot make it)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class _MyError(Exception):
    pass


def _checked(x):
    if x.sum() < 0:
        raise ValueError("negative input")
    if x.max() > 100:
        raise OverflowError
    if x.min() < -50:
        raise _MyError("too small")
    return x * 2


@pytest.mark.parametrize("values, error, text", [([-1.0, -2.0], ValueError, "negative input"),
                                                 ([200.0, 1.0], OverflowError, "test_hunt_raise_types"),
                                                 ([-60.0, 100.0], AssertionError, "_MyError: too small")])
def test_builtin_exceptions_keep_their_type_at_run_time(values, error, text):
    sf = dy2st.to_static(_checked)
    np.testing.assert_array_equal(sf(rt.to_tensor([1.0, 2.0])).numpy(), [2.0, 4.0])
    with pytest.raises(error) as eager:
        _checked(rt.to_tensor(values)) if error is not AssertionError else sf(rt.to_tensor(values))
    with pytest.raises(error, match=text) as converted:
        sf(rt.to_tensor(values))
    assert "test_hunt_raise_types.py" in str(converted.value)
    if error is not AssertionError:
        assert str(converted.value).startswith(str(eager.value))
