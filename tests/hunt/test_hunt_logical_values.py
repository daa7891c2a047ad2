"""`mask and y` with a bool tensor mask and a non-bool y (a tensor or a Python value), outside a condition: Python gives
one operand (a bool or y), so the converted function refuses it at the user's line instead of
giving y's truth broadcast against the mask; inside a condition it still converts."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check


def _operand_value(x, y):
    a = x.sum() > 0 and y
    return a


def _in_condition(x, y):
    if x.sum() > 0 and y.sum():
        return x + 1
    return x - 1


def test_bool_and_float_operand_value_is_refused_at_the_line():
    x, y = rt.to_tensor([-1.0, 0.5]), rt.to_tensor([0.2, 0.9])
    with pytest.raises(TypeError, match="`and` between a bool tensor") as info:
        dy2st.to_static(_operand_value)(x, y)
    assert "a = x.sum() > 0 and y" in str(info.value)
    sf = dy2st.to_static(_in_condition)
    for xs in ([-1.0, 0.5], [1.0, 0.5]):
        x = rt.to_tensor(xs)
        np.testing.assert_array_equal(sf(x, y).numpy(), _in_condition(x, y).numpy())


def _python_operands(x, n):
    out = x
    if x.sum() > 0 and 2:  # a condition: only the truth matters
        out = out + 1
    if x.sum() > 0 and n:
        out = out + 2
    k = x.sum() > 0 and 2 or 3  # the old ternary idiom: 2 if ... else 3
    return out, x * k


def _python_operand_value(x):
    return x.sum() > 0 and 5


def test_python_operands_in_conditions_ternaries_and_values():
    check(_python_operands, (arr(3), 1), (arr(3, lo=-1, hi=0), 0), grad=True)
    with pytest.raises(TypeError, match="`and` between a bool tensor .* and the Python value 5"):
        dy2st.to_static(_python_operand_value)(rt.to_tensor([1.0, 2.0]))
