"""A dim known only at run time is a Python int eagerly, so `n * 0.1 + 1e-9`, `n + 0.30000001` and
`n ** 0.5` are float64 Python floats. Converted, the marked int met the float constant in float32:
`a - n * 0.1` lost the 1e-9, and `n + 0.30000001 > n + 0.3` was False. Now float64, seen as floats."""
import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _mixed(x):
    n = x.shape[0]
    a = n * 0.1 + 1e-9
    c = n + 0.30000001
    d = n - 1e-8
    above = x * 0 + 3 if c > n + 0.3 else x * 0 - 3
    return (x * 0 + (a - n * 0.1) * 1e9, x * 0 + (c - n), x * 0 + (n - d) * 1e8, above,
            x * 0 + (n ** 0.5 - 1.7320508) * 1e7, x * 0 + (n ** -2) * 1e3,
            x * 0 + (n / 2.5 - 0.4 * n) * 1e9, x * 0 + (1.1 / n - 0.3666666) * 1e8)


def test_an_unknown_dim_with_python_floats_computes_in_float64():
    sf = dy2st.to_static(_mixed, input_spec=[InputSpec([None], "float32")])
    for n in (1, 3, 7):
        x = rt.to_tensor(np.ones(n, "float32"))
        for a, b in zip(_mixed(x), sf(x)):
            assert str(a.dtype) == str(b.dtype)
            np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert len(sf.program_cache) == 1
