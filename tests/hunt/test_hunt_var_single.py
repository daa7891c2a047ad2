"""var/std with no degrees of freedom (one element unbiased, or none) are nan, as in Paddle and numpy
(they were silently 0)."""
import numpy as np

import dy2st
import runtime as rt


def _spread(x):
    return rt.var(x), rt.std(x, axis=1), rt.var(x, axis=1, unbiased=False)


def test_single_element_unbiased_variance_is_nan_eager_and_converted():
    x = rt.to_tensor([[2.0], [5.0]])
    for v, s, biased in (_spread(x), dy2st.to_static(_spread)(x)):
        np.testing.assert_allclose(v.numpy(), 4.5)
        assert np.isnan(s.numpy()).all() and s.shape == [2]
        assert biased.numpy().tolist() == [0.0, 0.0]
