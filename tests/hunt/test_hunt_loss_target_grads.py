"""Which loss inputs take a gradient, as in Paddle: its binary_cross_entropy(_with_logits), kl_div, log_loss
kernels give the label (and pos_weight) none, nll_loss gives its class weights none.  Ours used to send
a gradient into a target that needed one (another network's output, as in mutual learning), so such
training silently differed from Paddle's.  sigmoid_focal_loss's label gradient is Paddle's (3.3) values."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F

_P = np.array([[0.2, 0.7], [0.9, 0.4]], "float32")
_Y = np.array([[1.0, 0.0], [0.3, 1.0]], "float32")
_W = np.array([1.0, 2.0], "float32")

CASES = {
    "binary_cross_entropy": lambda p, y: F.binary_cross_entropy(p, y),
    "bce_with_logits": lambda p, y: F.binary_cross_entropy_with_logits(p, y, pos_weight=y[0]),
    "kl_div": lambda p, y: F.kl_div(rt.log(p), y, reduction="batchmean"),
    "kl_div_log_target": lambda p, y: F.kl_div(rt.log(p), rt.log(y + 0.1), log_target=True),
    "log_loss": lambda p, y: F.log_loss(p, y).sum(),
    "nll_loss": lambda p, y: F.nll_loss(rt.log(p), rt.to_tensor([0, 1]), weight=y[0] + 1.0),
    "BCELoss": lambda p, y: rt.nn.BCELoss()(p, y),
    "KLDivLoss": lambda p, y: rt.nn.KLDivLoss(reduction="sum")(rt.log(p), y),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_target_takes_no_gradient_eagerly_and_converted(name):
    fn = CASES[name]
    converted = dy2st.to_static(fn)
    for scale in (1.0, 0.5):
        grads = []
        for run in (fn, converted):
            p = rt.to_tensor(_P * scale, stop_gradient=False)
            y = rt.to_tensor(_Y, stop_gradient=False)
            run(p, y).backward()
            assert y.grad is None
            grads.append(p.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
        assert np.abs(grads[0]).max() > 0


def test_sigmoid_focal_loss_label_gradient_is_paddles():
    x = rt.to_tensor([[0.5, -1.0], [2.0, 0.1]], stop_gradient=False)
    y = rt.to_tensor(_Y, stop_gradient=False)
    F.sigmoid_focal_loss(x, y).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.03448424, 0.03943584], [0.19848193, -0.06496372]], rtol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), [[-0.05570493, 0.04707036], [-1.2351664, -0.08034854]], rtol=1e-5)
