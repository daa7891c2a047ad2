"""`bool(t) is True` (also `not t is False`, a flag a tensor loop sets compared with `is`): eagerly
the value is a Python bool and `is True` asks its value; the traced bool is a Variable, never the
object True, so the converted function answered False on every input, silently. Such identities
on a traced bool are refused at the user's line; on Python values they keep Python's meaning."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _bool_is_true(x):
    if bool(x.sum() > 2) is True:
        return x + 1
    return x - 1


def _flag_is_not_false(x):
    found = False
    for v in x:
        if v > 2:
            found = True
    return x * 2 if found is not False else x


def _python_flags(x, flag=True):
    y = x * 2 if flag is True else x
    return y + 1 if x.stop_gradient is not False else y


@pytest.mark.parametrize("fn", [_bool_is_true, _flag_is_not_false])
def test_identity_with_a_bool_literal_on_a_traced_bool_is_refused(fn):
    with pytest.raises(TypeError, match="known only when the Program runs") as info:
        dy2st.to_static(fn)(rt.to_tensor(np.array([1.0, 3.0], "float32")))
    assert "test_hunt_bool_identity.py" in "".join(info.value.__notes__)


def test_identity_on_python_values_keeps_its_meaning():
    sf = dy2st.to_static(_python_flags)
    x = rt.to_tensor(np.array([1.0, 3.0], "float32"))
    for flag in (True, False, 1):
        np.testing.assert_array_equal(sf(x, flag).numpy(), _python_flags(x, flag).numpy())
