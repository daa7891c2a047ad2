"""maximum/minimum split a tie's gradient in halves (Paddle 3.3 and PyTorch), so logaddexp's gradient at
x == y is exact; elu/selu/celu keep Paddle's slope at 0 (expected values from Paddle 3.3)."""
import numpy as np
import pytest

import runtime as rt
from tests.compat.helpers import check

F = rt.nn.functional


@pytest.mark.parametrize("op, gx, gy", [(rt.maximum, [0.5, 1.0, 0.0], [0.5, 0.0, 1.0]),
                                        (rt.minimum, [0.5, 0.0, 1.0], [0.5, 1.0, 0.0])])
def test_a_tie_splits_the_gradient(op, gx, gy):
    x = rt.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = rt.to_tensor([1.0, 1.0, 4.0], stop_gradient=False)
    op(x, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), gx)
    np.testing.assert_array_equal(y.grad.numpy(), gy)


def test_logaddexp_and_the_exponential_units_at_their_kinks():
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    y = rt.to_tensor([1.0, 0.0], stop_gradient=False)
    rt.logaddexp(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.8807971], rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), [0.5, 0.11920291], rtol=1e-6)
    for fn, want in [(lambda t: F.elu(t, 0.7), [0.7, 0.7, 1.0]), (F.selu, [1.7580993, 1.7580993, 1.050701]),
                     (lambda t: F.celu(t, 0.7), [1.0, 1.0, 1.0])]:
        t = rt.to_tensor([0.0, -0.0, 1.0], stop_gradient=False)
        fn(t).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-6)


def _ties(x, y):
    return rt.maximum(x, y) * 2 + rt.minimum(x, y.flip(0))


def test_converted_ties_match_eager():
    a = np.array([1.0, 2.0, 2.0, -1.0], "float32")
    check(_ties, (a, a[::-1].copy()), (a, a.copy()), grad=True)
