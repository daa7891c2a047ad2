"""matmul gradients with a vector operand: a dot product (0-d upstream grad) used to raise, and the
transpose flags were ignored (a silently wrong gradient for a square transposed matrix)."""
import numpy as np
import pytest

import dy2st
import runtime as rt

CASES = [([4], [4], False, False), ([4], [4, 4], False, True), ([4, 4], [4], True, False),
         ([2, 4, 4], [4], True, True), ([4], [3, 4, 4], True, True), ([3, 4], [3], True, False)]


def _mm(x, y, w, tx, ty):
    return (rt.matmul(x, y, transpose_x=tx, transpose_y=ty) * w).sum()


def _numeric(f, v, eps=1e-6):
    out = np.zeros_like(v)
    for i in np.ndindex(v.shape):
        e = np.zeros_like(v)
        e[i] = eps
        out[i] = (f(v + e) - f(v - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("xs,ys,tx,ty", CASES)
def test_vector_matmul_gradients_match_finite_differences(xs, ys, tx, ty):
    rng = np.random.default_rng(0)
    xv, yv = rng.standard_normal(xs), rng.standard_normal(ys)
    sw = lambda a: np.swapaxes(a, -1, -2) if a.ndim >= 2 else a  # noqa: E731
    w = rng.standard_normal(np.matmul(sw(xv) if tx else xv, sw(yv) if ty else yv).shape)

    def ref(a, b):
        return float((np.matmul(sw(a) if tx else a, sw(b) if ty else b) * w).sum())
    want = _numeric(lambda a: ref(a, yv), xv), _numeric(lambda b: ref(xv, b), yv)
    for fn in (_mm, dy2st.to_static(_mm)):
        x, y = rt.to_tensor(xv, stop_gradient=False), rt.to_tensor(yv, stop_gradient=False)
        fn(x, y, rt.to_tensor(w), tx, ty).backward()
        np.testing.assert_allclose(x.grad.numpy(), want[0], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(y.grad.numpy(), want[1], rtol=1e-6, atol=1e-8)
