"""paddle.vision.ops' detection functions (RoI pooling, box coding, prior boxes...) against values
Paddle 3.3 gave for the same inputs (data/paddle33_detection.npz, keyed as below; the inputs are built
here the same way), and converted with dy2st.to_static against eager, gradients included."""
import os

import numpy as np
import pytest

import runtime as rt
from compat.helpers import check

REF = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "paddle33_detection.npz"))

X = np.random.default_rng(7).standard_normal((2, 8, 5, 6)).astype("float32")
BOXES = np.array([[0.5, 1.2, 4.3, 3.1], [1, 0, 3, 2.5], [-0.7, 0.3, 5.6, 4.9]], "float32")
BOXES_NUM = np.array([1, 2], "int32")
G = np.random.default_rng(8).standard_normal((3, 8, 2, 2)).astype("float32")

ROI = {"align": ("roi_align", dict(output_size=2)),
       "align_unaligned": ("roi_align", dict(output_size=2, spatial_scale=0.8, sampling_ratio=2, aligned=False)),
       "pool": ("roi_pool", dict(output_size=2, spatial_scale=0.9)),
       "psroi": ("psroi_pool", dict(output_size=2, spatial_scale=1.1))}


@pytest.mark.parametrize("key", sorted(ROI))
def test_roi_pooling_matches_paddle_values_and_gradients(key):
    fn, kw = ROI[key]
    x = rt.to_tensor(X, stop_gradient=False)
    out = getattr(rt.vision.ops, fn)(x, rt.to_tensor(BOXES), rt.to_tensor(BOXES_NUM), **kw)
    (out * rt.to_tensor(G[:, :out.shape[1]])).sum().backward()
    # the forward is Paddle's CPU kernel step for step (bitwise for roi_align); the gradients add in another order
    np.testing.assert_allclose(out.numpy(), REF[key + "_out"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), REF[key + "_grad"], rtol=1e-5, atol=1e-6)


def test_roi_align_gradient_is_the_derivative_of_its_values():
    # a box under one pixel too (aligned): Paddle 3.3's CPU gradient kernel widens such boxes to one
    # pixel and so disagrees with its own forward; this one is the forward's derivative
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 5))
    boxes = rt.to_tensor(np.array([[0.4, 0.7, 3.1, 2.2], [2.3, 1.1, 2.6, 1.5]]))
    t = rt.to_tensor(x, stop_gradient=False)
    rt.vision.ops.roi_align(t, boxes, rt.to_tensor([2], "int32"), (2, 3)).sum().backward()
    eps, num = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        f = [float(rt.vision.ops.roi_align(rt.to_tensor(x + s * d), boxes, rt.to_tensor([2], "int32"), (2, 3)).sum())
             for s in (1, -1)]
        num[i] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(t.grad.numpy(), num, atol=1e-6)


def test_roi_layers_and_errors():
    x, b, n = rt.to_tensor(X), rt.to_tensor(BOXES), rt.to_tensor(BOXES_NUM)
    np.testing.assert_array_equal(rt.vision.ops.RoIAlign(2)(x, b, n).numpy(), REF["align_out"])
    np.testing.assert_array_equal(rt.vision.ops.RoIPool(2, 0.9)(x, b, n).numpy(), REF["pool_out"])
    assert rt.vision.ops.PSRoIPool((2, 2), 1.1)(x, b, n).shape == [3, 2, 2, 2]
    with pytest.raises(ValueError, match="boxes_num"):
        rt.vision.ops.roi_align(x, b, rt.to_tensor([1, 1], "int32"), 2)
    with pytest.raises(ValueError, match="divisible"):
        rt.vision.ops.psroi_pool(x, b, n, 3)


def test_roi_pooling_converted_serves_any_number_of_boxes():
    def heads(x, boxes, boxes_num):
        a = rt.vision.ops.roi_align(x, boxes, boxes_num, 2, spatial_scale=0.5)
        p = rt.vision.ops.roi_pool(x, boxes, boxes_num, (1, 2))
        s = rt.vision.ops.psroi_pool(x, boxes, boxes_num, 2)
        return a * 2.0, p, s

    two = (X, BOXES[:2], np.array([1, 1], "int32"))
    check(heads, (X, BOXES, BOXES_NUM), two, grad=True, ops=["roi_align", "roi_pool", "psroi_pool"])
