"""`round()` of a Python number known only when the Program runs (an unknown dim divided,
`round(n / 2)`): a TypeError about the Variable's missing `__round__`. It now rounds as Python
does (to an int, ties to even); `round(v, k)` is refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from runtime.static import InputSpec


def _halves(x):
    n = x.shape[0]
    return round(n / 2), round(n / 4), round(-n / 4), round(n), x[: round(n / 2)] * 2


def _digits(x):
    return x * round(x.shape[0] / 3, 1)


def test_round_of_run_time_numbers_matches_python():
    sf = dy2st.to_static(_halves, input_spec=[InputSpec([None], "float32")])
    for k in (1, 2, 3, 5, 6, 10):
        x = rt.to_tensor(np.arange(k, dtype="float32"))
        want, got = _halves(x), sf(x)
        assert [int(v.numpy()) if rt.is_tensor(v) else v for v in got[:4]] == list(want[:4])
        np.testing.assert_array_equal(got[4].numpy(), want[4].numpy())


def test_round_to_digits_is_refused_at_the_users_line():
    with pytest.raises(TypeError, match=r"round\(value, 1\)") as info:
        dy2st.to_static(_digits, input_spec=[InputSpec([None], "float32")])(rt.ones([3]))
    assert "test_hunt_round_dims.py" in notes(info.value) + str(info.value)
