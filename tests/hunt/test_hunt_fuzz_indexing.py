"""Found by the fuzzer's ``indexing`` grammar: an item write whose slice has a run-time bound
(``y[n % 2::2] = v``) left ``y`` with every dim unknown (``[-1, -1]``: the write reshaped its result
to ``rt.shape(y)``), so ``rt.unbind(y, axis=1)`` after it was refused ("dim 1 must be known"); the
known dims stay known now (a reshape to them, ``-1`` for the one dim known only at run time)."""
import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _write_then_unbind(x, n):
    y = x * 1.0
    if x.sum() > 0:
        y[n % 2::2] = x[n % 2::2] * 0.5
    a, b, c, d = rt.unbind(y, axis=1)
    return a + d * 2.0 + b * c


def test_an_item_write_with_a_run_time_bound_keeps_the_known_dims(tmp_path):
    static = dy2st.to_static(_write_then_unbind)
    prefix = str(tmp_path / "m")
    dy2st.save(static, prefix, input_spec=[InputSpec([None, 4], "float32", "x"), InputSpec([], "int64", "n")])
    loaded = dy2st.load(prefix)
    for b, k, sign in [(3, 0, 1.0), (5, 1, 1.0), (4, 1, -1.0)]:
        x = rt.to_tensor(np.arange(b * 4, dtype="float32").reshape(b, 4) * sign)
        n = rt.to_tensor(k, dtype="int64")
        want = _write_then_unbind(x, n).numpy()
        np.testing.assert_array_equal(static(x, n).numpy(), want)
        np.testing.assert_array_equal(loaded(x, n).numpy(), want)
