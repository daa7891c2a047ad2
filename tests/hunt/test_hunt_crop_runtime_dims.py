"""rt.crop over dims unknown while the Program is built: a -1 in ``shape`` (to the end of the dim),
or no ``shape`` at all, took the dim's -1 placeholder as the slice's end and dropped the last entry
([1, 1, 2] where eager gives [2, 1, 2], no error). The end is read when the Program runs."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


@pytest.mark.parametrize("kw", [{"shape": [-1, 1, 2], "offsets": [0, 0, 1]}, {}, {"shape": [-1, -1, 2], "offsets": [1, 0, 2]}])
def test_crop_to_the_end_of_a_run_time_dim(kw):
    def fn(x):
        return rt.crop(x, **kw)
    sf = dy2st.to_static(fn, input_spec=[InputSpec([None, None, 4], "float32")])
    for shape in ((2, 3, 4), (3, 1, 4)):
        x = rt.to_tensor(np.random.RandomState(sum(shape)).rand(*shape).astype("float32"))
        want, got = fn(x), sf(x)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())
