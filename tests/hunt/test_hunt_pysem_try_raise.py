"""`if cond: raise E` inside `try: ... except E:`. Eagerly the handler runs. Converted, a tensor
condition became a run-time check that raised past the handler (on the calls eager code handled),
and a Python condition's raise was refused as if tensor code had failed while tracing. Now the
Python one is handled as eagerly, and the tensor one is a TypeError at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.error_helpers import line_of, notes


def _python_condition(x, n):
    try:
        if n > 3:
            y = x + 1
            raise ValueError("big")
        y = x * 2
    except ValueError:
        y = x * 3
    return y


def test_a_python_condition_raises_into_the_handler():
    sf = dy2st.to_static(_python_condition)
    for v, n in (([1.0, 2.0], 5), ([-1.0, 4.0], 1), ([2.0, 0.5], 7)):
        x = rt.to_tensor(v)
        np.testing.assert_array_equal(sf(x, n).numpy(), _python_condition(x, n).numpy())


def _tensor_condition(x):
    try:
        if x.sum() > 0:
            raise ValueError("positive")
        y = x * 2
    except ValueError:
        y = x * 3
    return y


def test_a_tensor_condition_under_a_handler_is_an_error_at_the_users_line():
    with pytest.raises(TypeError, match="inside `try` with `except`") as info:
        dy2st.to_static(_tensor_condition)(rt.to_tensor([1.0, 2.0]))
    assert f"line {line_of(_tensor_condition, 'if x.sum() > 0')}" in str(info.value) + notes(info.value)
