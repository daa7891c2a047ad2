"""`bool(t) is True` (also `not t is False`, a flag a tensor loop sets compared with `is`): eagerly
the value is a Python bool and `is True` asks its value; the traced bool is a Variable, never the
object True, so the converted function answered False on every input, silently. A traced Python
bool (``PythonBool``) is now compared by value; a traced bool that may be a bool tensor eagerly
(never `True`) is refused at the user's line; on Python values `is` keeps Python's meaning."""
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


def _tensor_is_true(x):
    return x + 1 if (x > 2).any() is True else x


def _python_flags(x, flag=True):
    y = x * 2 if flag is True else x
    return y + 1 if x.stop_gradient is not False else y


@pytest.mark.parametrize("fn", [_bool_is_true, _flag_is_not_false])
def test_identity_of_a_traced_python_bool_compares_its_value(fn):
    sf = dy2st.to_static(fn)
    for vals in ([1.0, 3.0], [1.0, 0.5]):
        x = rt.to_tensor(np.array(vals, "float32"))
        np.testing.assert_array_equal(sf(x).numpy(), fn(x).numpy())


def test_identity_of_a_traced_bool_tensor_is_refused():
    with pytest.raises(TypeError, match="known only when the Program runs") as info:
        dy2st.to_static(_tensor_is_true)(rt.to_tensor(np.array([1.0, 3.0], "float32")))
    assert "test_hunt_bool_identity.py" in "".join(info.value.__notes__)


def test_identity_on_python_values_keeps_its_meaning():
    sf = dy2st.to_static(_python_flags)
    x = rt.to_tensor(np.array([1.0, 3.0], "float32"))
    for flag in (True, False, 1):
        np.testing.assert_array_equal(sf(x, flag).numpy(), _python_flags(x, flag).numpy())
