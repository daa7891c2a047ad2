"""maximum/minimum split a tie's gradient in halves (Paddle 3.3 and PyTorch), so logaddexp's gradient
at x == y is exact; elu/selu/celu keep Paddle's slope at 0, and relu6/hardtanh/hardswish/hardshrink
Paddle's gradients at their kinks (expected values from Paddle 3.3)."""
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


@pytest.mark.parametrize("fn, want", [
    (F.relu6, [0, 0, 0, 0, 1, 1, 1, 0]),
    (F.hardtanh, [0, 0, 1, 1, 1, 0, 0, 0]),
    (F.hardswish, [0, 0.16667, 0.33333, 0.5, 0.66667, 0.83333, 1, 1]),
    (F.hardshrink, [1, 1, 1, 0, 1, 1, 1, 1]),
])
def test_gradients_exactly_at_the_kinks_are_paddles(fn, want):
    """Paddle 3.3's gradients at -3, -1, -0.5, 0, 0.5, 1, 3 and 6."""
    x = rt.to_tensor(np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0], "float32"), stop_gradient=False)
    fn(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want, atol=1e-5)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's divide-by-zero of the inner gradients
def test_abs_passes_no_gradient_at_zero_even_an_infinite_one():
    """Paddle's abs gradient is 0 at x == 0: sqrt(|x|) and a where() discarding log(|x|) stay finite."""
    v = np.array([0.0, 1.0, -2.0], "float32")
    x = rt.to_tensor(v, stop_gradient=False)
    rt.sqrt(rt.abs(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.5, -0.35355339], rtol=1e-6)
    x = rt.to_tensor(v, stop_gradient=False)
    rt.where(x > 0, rt.log(rt.abs(x)), x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
