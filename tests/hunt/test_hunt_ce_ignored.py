"""An ignored cross_entropy row contributes 0 loss and 0 gradient even when its logits are nan/inf, as in
Paddle (the mask was applied by multiplying, and nan * 0 is nan)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _ce(x, reduction):
    return F.cross_entropy(x, rt.to_tensor([[1], [2]]), ignore_index=2, reduction=reduction)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ignored_row_with_nan_logits_stays_out(reduction):
    v = np.array([[0.1, 0.5, -0.3, 0.2], [np.nan, np.inf, 0.3, 0.0]], "float32")
    p = np.exp(v[0]) / np.exp(v[0]).sum()
    for fn in (_ce, dy2st.to_static(_ce)):
        x = rt.to_tensor(v, stop_gradient=False)
        with np.errstate(invalid="ignore"):
            out = fn(x, reduction)
            out.sum().backward()
        np.testing.assert_allclose(out.numpy().ravel(), [1.050985, 0.0][: out.size], rtol=1e-5)
        np.testing.assert_allclose(x.grad.numpy(), [p - [0, 1, 0, 0], [0, 0, 0, 0]], rtol=1e-5, atol=1e-7)
