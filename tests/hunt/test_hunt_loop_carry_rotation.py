"""A tensor loop whose body passes values between carries (`a, b = b, a + b * x`) reaches the kinds
and dtypes the loop carries only after some iterations, or never settles. Fibonacci from Python ints
with an int32 `x` carried int64 (eager: int32, which wraps); `a, b = 0.5, 1` then `a, b = b, a * x`
with a uint8 `x` alternates eagerly (float32 after odd iterations, wrapping uint8 after even ones)
and the Program computed every `b` in float32: other values, no error. The first holds int32 now;
the second is refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check
from tests.error_helpers import line_of, notes


def _fibonacci(x, n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b * x
    return a, b


def _rotate(x, n):
    a, b, c = 1, 2, 3
    i = 0
    while i < n:
        a, b, c = b, c, a + x
        i += 1
    return a, b, c


def _alternating(x, n):
    a, b = 0.5, 1
    for _ in range(n):
        a, b = b, a * x
    return b


def test_carries_that_settle_after_some_iterations_keep_the_eager_dtype():
    x = np.array([2**16 + 3, 7], "int32")  # x * x wraps in int32 as eagerly
    check(_fibonacci, (x, np.array(2)), (x, np.array(4)), rtol=0, atol=0)
    check(_rotate, (x, np.array(3)), (x, np.array(5)), (np.array([200, 9], "uint8"), np.array(4)), rtol=0, atol=0)


def test_carries_whose_dtype_alternates_are_refused_at_the_users_line():
    with pytest.raises(ValueError, match="variable 'b' is a tensor of dtype uint8") as info:
        dy2st.to_static(_alternating)(rt.to_tensor(np.array([200, 100], "uint8")), rt.to_tensor(4))
    assert f"line {line_of(_alternating, 'for _ in range(n)')}" in str(info.value) + notes(info.value)
    check(_alternating, (np.array([0.5, 2.0], "float32"), np.array(4)))  # one dtype: no refusal
