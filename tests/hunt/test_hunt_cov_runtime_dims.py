"""rt.linalg.cov / corrcoef over a dim unknown while the Program is built (an InputSpec None) divided
by that dim's -1 placeholder (every value sign-flipped and scaled, no error); the count is now read
when the Program runs. numpy's one-row rule (rowvar=False does not transpose a 1-row x, one variable
gives a 0-D result) cannot follow a run-time dim: assumed not 1, and a ValueError when it is."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _cov(x):
    return rt.linalg.cov(x), rt.linalg.cov(x, ddof=False), rt.linalg.corrcoef(x)


def _cov_columns(x):
    return rt.linalg.cov(x, rowvar=False)


@pytest.mark.parametrize("fn, spec, shapes", [
    (_cov, [3, None], [(3, 4), (3, 7)]), (_cov, [None, 4], [(3, 4), (2, 4)]),
    (_cov_columns, [None, 3], [(4, 3), (6, 3)]), (_cov_columns, [4, None], [(4, 3)])])
def test_cov_over_unknown_dims_matches_eager(fn, spec, shapes):
    sf = dy2st.to_static(fn, input_spec=[InputSpec(spec, "float32")])
    for k, shape in enumerate(shapes):
        x = rt.to_tensor(np.random.RandomState(k).rand(*shape).astype("float32"))
        eager, static = fn(x), sf(x)
        for e, s in zip(eager if isinstance(eager, tuple) else [eager], static if isinstance(static, tuple) else [static]):
            assert s.shape == e.shape
            np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)


def test_a_run_time_dim_of_one_that_changes_covs_shape_raises():
    sf = dy2st.to_static(_cov_columns, input_spec=[InputSpec([None, 3], "float32")])
    with pytest.raises(ValueError, match="1 row"):
        sf(rt.to_tensor(np.ones((1, 3), "float32")))
