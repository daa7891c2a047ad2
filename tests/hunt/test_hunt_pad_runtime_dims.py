"""F.pad over a dim known only when the Program runs: circular padding wider than the run-time dim
took a slice shorter than the pad (wrong shape and values, no error) where eager wraps around again,
and reflect padding as wide as the dim gave numpy's repeated reflection where eager raises
ValueError. Both follow eager now."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime.static import InputSpec


@pytest.mark.parametrize("mode, pads", [("circular", [3, 1]), ("circular", [1, 5]), ("reflect", [2, 2]),
                                         ("reflect", [1, 0]), ("replicate", [3, 2])])
def test_pad_over_a_run_time_dim_matches_eager(mode, pads):
    def fn(x):
        return F.pad(x, pads, mode=mode)
    sf = dy2st.to_static(fn, input_spec=[InputSpec([1, 2, None], "float32")])
    for n in (1, 2, 3, 6):
        x = rt.to_tensor(np.random.RandomState(n).rand(1, 2, n).astype("float32"))
        try:
            want = fn(x).numpy()
        except ValueError:
            with pytest.raises(ValueError, match="reflect padding"):
                sf(x)
            continue
        got = sf(x).numpy()
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
