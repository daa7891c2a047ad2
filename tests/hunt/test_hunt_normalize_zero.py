"""F.normalize of an all-zero slice has a finite gradient (x's gradient / epsilon), as in Paddle; it was
nan (sqrt's gradient 0/0 at a zero norm). Nonzero slices are unchanged."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _norm(x, w):
    return (F.normalize(x, axis=1, epsilon=1e-6) * w).sum()


def test_zero_row_gradient_is_finite_eager_and_converted():
    w = rt.to_tensor([[1.0, 2.0], [4.0, -1.0]])
    for fn in (_norm, dy2st.to_static(_norm)):
        x = rt.to_tensor([[0.0, 0.0], [3.0, 4.0]], stop_gradient=False)
        fn(x, w).backward()
        g = x.grad.numpy()
        np.testing.assert_allclose(g[0], [1e6, 2e6], rtol=1e-5)
        # d/dx of (4x - y) / |(x, y)| at (3, 4): (w - (w.u) u) / 5 with u = (0.6, 0.8), w.u = 1.6
        np.testing.assert_allclose(g[1], [0.608, -0.456], atol=1e-6)
