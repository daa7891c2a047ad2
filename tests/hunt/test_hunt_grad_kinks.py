"""Gradients at zeros and ties: prod and cumprod were nan at a zero of x (their rules divided by x; Paddle's
cumprod is exact there), fmax/fmin split a tie's gradient between x and y (Paddle gives it to x).  Checked
against central finite differences in float64, eager and converted (one Program for every value)."""
import numpy as np
import pytest

import dy2st
import runtime as rt

XS = [np.array([1.0, 2.0, 2.0, 0.0, -1.0]), np.array([0.0, 2.0, 0.0, 3.0, -1.0]),
      np.array([0.0, 0.5, 1.5, 2.0, -3.0]), np.array([1.5, -0.5, 2.0, 0.25, 3.0])]


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["prod", "prod_axis", "cumprod"])
def test_products_have_exact_gradients_at_zeros(name):
    fns = {"prod": (lambda t: rt.prod(t) * 1.5, lambda a: np.prod(a) * 1.5),
           "prod_axis": (lambda t: rt.prod(rt.reshape(t, [1, 5]), axis=1) * 2.0, lambda a: np.prod(a) * 2.0),
           "cumprod": (lambda t: rt.cumprod(t, dim=0) * rt.arange(1, 6, dtype="float64"),
                       lambda a: np.cumprod(a) * np.arange(1, 6))}
    f, ref = fns[name]
    converted = dy2st.to_static(f)
    for x in XS:
        want = _fd(lambda a: ref(a).sum(), x)
        for run in (f, converted):
            t = rt.to_tensor(x, stop_gradient=False)
            run(t).sum().backward()
            np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-6, atol=1e-6)
    assert converted.get_traced_count() == 1


def test_products_without_zeros_keep_their_gradient_bits():
    x = rt.to_tensor(XS[3].astype("float32"), stop_gradient=False)
    rt.prod(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.prod(XS[3].astype("float32")) / XS[3].astype("float32"))


@pytest.mark.parametrize("fn", ["fmax", "fmin"])
def test_fmax_fmin_give_a_tie_to_x_and_ignore_nan(fn):
    x = np.array([1.0, 2.0, np.nan, np.nan, 0.0], "float32")
    y = np.array([1.0, 3.0, 1.0, np.nan, -1.0], "float32")
    f = getattr(rt, fn)
    converted = dy2st.to_static(lambda a, b: f(a, b) * 2.0)
    for run in (lambda a, b: f(a, b) * 2.0, converted):
        a, b = rt.to_tensor(x, stop_gradient=False), rt.to_tensor(y, stop_gradient=False)
        out = run(a, b)
        np.testing.assert_array_equal(out.numpy(), 2 * getattr(np, fn)(x, y))
        out.sum().backward()
        pick_x = np.isnan(y) | ((x >= y) if fn == "fmax" else (x <= y))
        np.testing.assert_array_equal(a.grad.numpy(), np.where(pick_x, 2.0, 0.0))
        np.testing.assert_array_equal(b.grad.numpy(), np.where(pick_x, 0.0, 2.0))
