"""clip with a missing bound on a float tensor clips to the dtype's finite extreme, as Paddle
(inf stayed inf); the gradient at such a clipped inf is 0, as Paddle's."""
import numpy as np

import runtime as rt

from tests.hunt.eager_checks import check, t

F32 = float(np.finfo(np.float32).max)


def _clipped(x):
    return rt.clip(x, min=0.0), rt.clip(x, max=0.0), rt.clip(x)


def test_missing_bound_is_finite_extreme():
    z = t([np.inf, -np.inf, np.nan, -0.0, 0.5, -2.5])
    lo, hi, both = _clipped(z)
    np.testing.assert_array_equal(lo.numpy(), [F32, 0.0, np.nan, -0.0, 0.5, 0.0])
    np.testing.assert_array_equal(hi.numpy(), [0.0, -F32, np.nan, -0.0, 0.0, -2.5])
    np.testing.assert_array_equal(both.numpy(), [F32, -F32, np.nan, -0.0, 0.5, -2.5])
    assert float(rt.clip(t([np.inf], "float64"), min=0.0)) == np.finfo(np.float64).max
    check(_clipped, [(z,), (t([1.0, -1.0]),)])


def test_gradient_at_clipped_inf_is_zero():
    x = t([np.inf, -np.inf, 1.0])
    x.stop_gradient = False
    rt.clip(x, min=0.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 1.0])
