"""A saved model's ops keep attribute values of either numeric kind where the API takes both:
`rt.arange(0, 1, 0.1)` saves and loads (its float step was refused by the loader's check)."""
import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec


def _ranges(v):
    return rt.arange(0, 1, 0.1) + v.sum(), rt.arange(0.5, 3) * v[0], rt.arange(0, 5, 2) + v.sum()


def test_arange_with_float_bounds_saves_and_loads(tmp_path):
    dy2st.save(_ranges, str(tmp_path / "m"), input_spec=[InputSpec([None], "float32")])
    loaded = dy2st.load(str(tmp_path / "m"))
    for v in ([1.0, 2.0, 3.0], [-0.5]):
        v = rt.to_tensor(np.array(v, "float32"))
        for got, want in zip(loaded(v), _ranges(v)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())
