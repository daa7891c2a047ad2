"""Scenario of Paddle's test_convert_call_generator: a generator function called from converted
code is not converted (a warning names it and the `yield`) but runs as is, so the result and the
gradients match eager."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check


def dyfunc_generator(n):
    for i in range(n):
        yield rt.to_tensor([i] * 3)


def main_func(x):
    out = x
    for i in dyfunc_generator(4):
        out = out * 0.5 + i.astype("float32")
    return out


def test_generator_runs_as_is_with_a_warning_naming_it():
    # the warning is given once per function, so one test checks it
    with pytest.warns(UserWarning, match=r"could not convert dyfunc_generator.*`yield`") as rec:
        check(main_func, (arr(3),), (arr(3, seed=1),), grad=True)
    assert any(__file__ in str(m.message) for m in rec), [str(m.message) for m in rec]
    x = rt.to_tensor(np.ones(3, "float32"))
    np.testing.assert_array_equal(dy2st.to_static(main_func)(x).numpy(), main_func(x).numpy())
