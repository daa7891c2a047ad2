"""`divmod(n, 3)` of a dim known only at run time (a Python int eagerly): it was a TypeError from
the marked int (no `__divmod__`); it is Python's floor pair, as `n // 3, n % 3` already were."""
import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _pairs(x):
    n = x.shape[0]
    q, r = divmod(n - 10, 4)
    a, b = divmod(-7, n)
    return x * q + r, x * a - b


def test_divmod_of_an_unknown_dim_is_pythons():
    sf = dy2st.to_static(_pairs, input_spec=[InputSpec([None], "float32")])
    for n in (3, 5, 8, 12):
        x = rt.to_tensor(np.arange(n, dtype="float32"))
        for a, b in zip(_pairs(x), sf(x)):
            np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert len(sf.program_cache) == 1
