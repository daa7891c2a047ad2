"""Adaptive max pooling in 1-D/3-D (with masks), adaptive average pooling in 3-D and LP pooling
(runtime/ops/nn_pool_adaptive.py, runtime/nn/layers_pool_extra.py): values, masks and gradients as
Paddle 3.3 gives them (hard-coded below), converted against eager bitwise with gradients, saved and
loaded, exported to ONNX; and the errors."""
import numpy as np
import pytest

import runtime as rt
import runtime.nn.functional as F
from nnapi_helpers import check_converted, check_onnx, check_saved

X1 = np.array([[[1, -2, 3, 0.5, -1, 2, 4], [2, 2, 0, 1, 1, -3, -3]]], "float32")
X3 = np.round(np.random.default_rng(5).standard_normal((1, 2, 3, 4, 5)), 1).astype("float32")
X2 = np.abs(np.round(np.random.default_rng(2).standard_normal((1, 2, 4, 5)), 1)).astype("float32") + 0.1


def test_adaptive_max_pool_values_masks_and_gradients_match_paddle():
    # Paddle 3.3: F.adaptive_max_pool1d(X1, 3, return_mask=True); x.grad of sum(out * (arange(6) + 1)):
    # ties go to the first maximum, and a max shared by two bins gets both gradients
    out, mask = check_converted(lambda x: F.adaptive_max_pool1d(x, 3, return_mask=True), X1)[0]
    np.testing.assert_array_equal(out, [[[3, 3, 4], [2, 1, 1]]])
    np.testing.assert_array_equal(mask, [[[2, 2, 6], [0, 3, 4]]])
    assert mask.dtype == np.int32
    x = rt.to_tensor(X1, stop_gradient=False)
    (F.adaptive_max_pool1d(x, 3) * rt.to_tensor(np.arange(1, 7, dtype="float32").reshape(1, 2, 3))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[0, 0, 3, 0, 0, 0, 3], [4, 0, 0, 5, 6, 0, 0]]])
    # Paddle 3.3: F.adaptive_max_pool3d(X3, [2, 3, 2], return_mask=True)[1] (the values are X3 there)
    want = [25, 9, 25, 9, 10, 13, 40, 24, 50, 52, 56, 58, 0, 4, 31, 14, 31, 18, 45, 48, 45, 48, 31, 57]
    out, mask = check_converted(lambda x: F.adaptive_max_pool3d(x, [2, 3, 2], return_mask=True), X3)[0]
    np.testing.assert_array_equal(mask.ravel(), want)
    np.testing.assert_array_equal(out.ravel(), X3.reshape(2, -1)[np.repeat([0, 1], 12), want])
    assert F.adaptive_max_pool3d(rt.to_tensor(X3), [None, 2, 1]).shape == [1, 2, 3, 2, 1]


def test_adaptive_avg_pool3d_matches_paddle():
    # Paddle 3.3: F.adaptive_avg_pool3d(X3, [2, 3, 2]) (first 8 of 24), and an NDHWC call with a None size
    (out,), (grad,) = check_converted(lambda x: F.adaptive_avg_pool3d(x, [2, 3, 2]), X3)
    np.testing.assert_allclose(out.ravel()[:8], [-0.4083333909511566, 0.08333337306976318, -0.46666669845581055,
                                                 -0.0416666679084301, -0.7583332657814026, -0.42499998211860657,
                                                 -0.28333333134651184, -0.5916666984558105], atol=2e-7)
    x = rt.to_tensor(X3, stop_gradient=False)
    (F.adaptive_avg_pool3d(x, [2, 3, 2]) * rt.arange(24, dtype="float32").reshape([1, 2, 2, 3, 2])).sum().backward()
    # Paddle 3.3's x.grad there, at [0, 0, 0, 0, :] and [0, 1, 2, 3, :]
    np.testing.assert_allclose(x.grad.numpy()[0, 0, 0, 0], [0, 0, 1 / 12, 1 / 12, 1 / 12], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy()[0, 1, 2, 3], [1.8333333730697632, 1.8333333730697632, 3.75,
                                                            1.9166667461395264, 1.9166667461395264], rtol=1e-6)
    nd = F.adaptive_avg_pool3d(rt.to_tensor(X3.transpose(0, 2, 3, 4, 1)), [1, 2, None], data_format="NDHWC")
    assert nd.shape == [1, 1, 2, 5, 2]
    np.testing.assert_allclose(nd.numpy().ravel()[:4], [0.10000001639127731, 0.20000000298023224,
                                                        -0.36666667461395264, -0.21666668355464935], atol=2e-7)


def test_lp_pool_matches_paddle():
    # Paddle 3.3: F.lp_pool1d([[[1, -2, 3, 0.5, -1, 2, 4]]], **kw): plain powers (nan for a negative sum under
    # a fractional root), inf is max pooling, padding left out of the sum
    x = rt.to_tensor(X1[:, :1])
    for kw, want in ((dict(norm_type=1, kernel_size=2), [-1, 3.5, 1]),
                     (dict(norm_type=2, kernel_size=2, padding=1), [1, 3.6055512, 1.118034, 4.472136]),
                     (dict(norm_type=3, kernel_size=2), [np.nan, 3.0046227, 1.9129312]),
                     (dict(norm_type=float("inf"), kernel_size=2), [1, 3, 2]),
                     (dict(norm_type=-1, kernel_size=2), [2, 0.42857143, -2])):
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(F.lp_pool1d(x, **kw).numpy().ravel(), want, rtol=1e-6)
    # Paddle 3.3: F.lp_pool2d(X2, 3, [2, 3], [1, 2], [0, 1], ceil_mode=True) and x.grad of sum(out * arange(18))
    kw = dict(norm_type=3, kernel_size=[2, 3], stride=[1, 2], padding=[0, 1], ceil_mode=True)
    (out,), (grad,) = check_converted(lambda x: F.lp_pool2d(x, **kw), X2, exact=False)
    x = rt.to_tensor(X2, stop_gradient=False)
    y = F.lp_pool2d(x, **kw)
    (y * rt.arange(18, dtype="float32").reshape(y.shape)).sum().backward()
    np.testing.assert_allclose(y.numpy().ravel()[:6], [1.26723, 2.56233, 2.83937, 1.47161, 1.19675, 1.10576], atol=1e-5)
    np.testing.assert_allclose(x.grad.numpy().ravel()[:6], [0.0, 0.05483, 0.03808, 2.50243, 0.89556, 1.99478], atol=1e-4)
    same = F.lp_pool2d(rt.to_tensor(X2), 2, 3, 2, "SAME")
    np.testing.assert_allclose(same.numpy().ravel()[:4], [1.84932, 3.01993, 3.4176, 1.33041], atol=1e-5)
    nhwc = F.lp_pool2d(rt.to_tensor(X2.transpose(0, 2, 3, 1)), 1.5, 2, data_format="NHWC")
    np.testing.assert_allclose(nhwc.numpy().ravel()[:4], [1.68979, 2.97644, 3.08297, 3.01609], atol=1e-5)


def test_pool_layers_reprs_save_load_and_onnx(tmp_path):
    assert repr(rt.nn.AdaptiveMaxPool3D(2, return_mask=True)) == "AdaptiveMaxPool3D(output_size=2, return_mask=True)"
    assert repr(rt.nn.LPPool1D(2, 3)) == "LPPool1D(norm_type=2.0, kernel_size=3, stride=None, padding=0)"
    assert repr(rt.nn.LPPool2D(2, 3)) == "LPPool2D(norm_type=2.0, kernel_size=3, stride=3, padding=0)"
    out, mask = rt.nn.AdaptiveMaxPool1D(2, return_mask=True)(rt.to_tensor(X1))
    assert mask.shape == [1, 2, 2] and rt.nn.AdaptiveMaxPool1D(2).state_dict() == {}

    def make():
        return rt.nn.Sequential(rt.nn.AdaptiveAvgPool3D([2, 3, 3]), rt.nn.AdaptiveMaxPool3D([1, 2, 2]))
    x = np.abs(X3) + 0.1
    check_saved(make(), x, tmp_path)
    check_onnx(make(), x)
    check_onnx(lambda x: F.lp_pool2d(x, 2, 2, ceil_mode=True)[:, :, :, :2], X2, tol=1e-5)


def test_pool_errors():
    with pytest.raises(ValueError, match="adaptive_max_pool1d: expects a 3-D NCL input"):
        F.adaptive_max_pool1d(rt.to_tensor(X3), 2)
    with pytest.raises(ValueError, match="output_size must be an int or 3 ints"):
        F.adaptive_avg_pool3d(rt.to_tensor(X3), [2, 2])
    with pytest.raises(ValueError, match="norm_type cannot be 0"):
        F.lp_pool1d(rt.to_tensor(X1), 0, 2)
    with pytest.raises(ValueError, match="data_format"):
        F.lp_pool2d(rt.to_tensor(X2), 2, 2, data_format="NCL")
