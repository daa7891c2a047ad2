"""F.fold / nn.Fold, F.affine_grid, F.grid_sample, F.gumbel_softmax, F.pdist and F.logsigmoid
(runtime/ops/nn_vision_extra.py, nn_misc_extra.py): values and gradients as Paddle 3.3 gives them
(hard-coded below, from paddle.nn.functional in a scratch script), converted against eager with gradients,
saved/loaded and exported; and the errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from nnapi_helpers import check_converted, check_onnx, check_saved, run_with_grads

XS = np.arange(12, dtype="float32").reshape(1, 1, 3, 4) ** 1.5 / 4
GRID = np.array([[[[-0.9, 0.35], [1.3, -0.6]], [[-1.25, 1.1], [0.55, 0.8]]]], "float32")

# Paddle 3.3: F.grid_sample(XS, GRID, mode, padding_mode, align_corners) and, for bilinear, GRID's gradient of
# sum(out * [[1, 2], [3, 4]])
PADDLE_GRID_SAMPLE = {
    ("bilinear", "zeros", True): ([3.41481, 1.4473, 3.18198, 7.43744], [1.34911, 3.70156, -7.89435, 3.66413, 22.91026,
                                                                        -10.6066, 6.97911, 17.26279]),
    ("bilinear", "zeros", False): ([2.74389, 0.0, 0.0, 6.90777], [7.8397, 3.8397, 0.0, 0.0, 11.8794, 0.0, 7.77616,
                                                                  -51.80825]),
    ("bilinear", "border", True): ([3.41481, 2.63145, 5.65685, 7.43744], [1.34911, 3.70156, 0, 6.66205, 0, 0,
                                                                          6.97911, 17.26279]),
    ("bilinear", "border", False): ([3.91985, 1.63214, 5.65685, 8.63471], [0, 5.48528, 0, 9.99308, 0, 0, 9.72019, 0]),
    ("bilinear", "reflection", True): ([3.41481, 2.29958, 5.68992, 7.43744], [1.34911, 3.70156, -2.21247, 6.33454,
                                                                              -4.78503, -11.30588, 6.97911, 17.26279]),
    ("bilinear", "reflection", False): ([3.91985, 1.56931, 5.65685, 8.63471], [0, 5.48528, -2.51328, 9.88391,
                                                                               -6.55888, 0, 9.72019, 0]),
    ("nearest", "zeros", True): ([2.0, 1.29904, 5.65685, 7.90569], None),
    ("nearest", "zeros", False): ([5.65685, 0.0, 0.0, 9.12072], None),
    ("nearest", "border", False): ([5.65685, 1.29904, 5.65685, 9.12072], None),
    ("nearest", "reflection", True): ([2.0, 1.29904, 5.65685, 7.90569], None),
}


@pytest.mark.parametrize("key", list(PADDLE_GRID_SAMPLE), ids=["-".join(map(str, k)) for k in PADDLE_GRID_SAMPLE])
def test_grid_sample_matches_paddle_and_converts(key):
    mode, padding_mode, align = key
    values, grid_grad = PADDLE_GRID_SAMPLE[key]

    def fn(x, grid):
        return F.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=align)
    if align != (padding_mode == "border"):  # converted against eager on half the rows (the kernels are shared)
        check_converted(fn, XS, GRID)
    x, g = rt.to_tensor(XS, stop_gradient=False), rt.to_tensor(GRID, stop_gradient=False)
    out = fn(x, g)
    (out * rt.to_tensor(np.arange(1, 5, dtype="float32").reshape(1, 1, 2, 2))).sum().backward()
    np.testing.assert_allclose(out.numpy().ravel(), values, atol=1e-5)
    if grid_grad is not None:
        np.testing.assert_allclose(g.grad.numpy().ravel(), grid_grad, atol=2e-4, rtol=1e-5)


def test_affine_grid_matches_paddle():
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]], "float32")
    # Paddle 3.3: F.affine_grid(theta, [1, 1, 2, 3], align_corners=False / True)
    np.testing.assert_allclose(F.affine_grid(rt.to_tensor(theta), [1, 1, 2, 3], align_corners=False).numpy().ravel(),
                               [-0.283333, -0.883333, 0.25, -0.75, 0.783333, -0.616667, -0.583333, 0.216667, -0.05,
                                0.35, 0.483333, 0.483333], atol=1e-6)
    np.testing.assert_allclose(F.affine_grid(rt.to_tensor(theta), [1, 1, 2, 3]).numpy().ravel(),
                               [-0.4, -1.5, 0.4, -1.3, 1.2, -1.1, -1.0, 0.7, -0.2, 0.9, 0.6, 1.1], atol=1e-6)
    assert F.affine_grid(rt.to_tensor(np.ones((2, 3, 4), "float32")), [2, 1, 2, 3, 4]).shape == [2, 2, 3, 4, 3]

    # a spatial transformer: theta -> grid -> samples, converted against eager with gradients
    def stn(x, theta):
        return F.grid_sample(x, F.affine_grid(theta, [1, 1, 3, 3], align_corners=False), align_corners=False)
    check_converted(stn, XS, theta)


def test_fold_matches_paddle():
    x = np.arange(240, dtype="float32").reshape(2, 12, 10) / 10
    # Paddle 3.3: F.fold(x, [4, 5], [2, 2], strides=[1, 2], paddings=[1, 0]): sum, sum of squares, out[0, 0, 0]
    (out,), _ = check_converted(lambda x: F.fold(x, [4, 5], [2, 2], strides=[1, 2], paddings=[1, 0, 1, 0]), x)
    np.testing.assert_allclose([out.sum(), (out ** 2).sum()], [2294.4, 72872.32], rtol=1e-6)
    np.testing.assert_allclose(out[0, 0, 0], [2.2, 4.2, 2.4, 4.4, 0.0], rtol=1e-6)
    # Paddle 3.3: x.grad of sum(F.fold(x, [5, 4], [2, 3], [2, 1], [1, 1]) * arange(40)), its first 12 entries
    x4 = np.random.default_rng(1).standard_normal((1, 12, 12)).astype("float32")
    t = rt.to_tensor(x4, stop_gradient=False)
    y = F.fold(t, [5, 4], [2, 3], strides=[2, 1], paddings=[1, 1])
    (y * rt.arange(40, dtype="float32").reshape(y.shape)).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy()[0, :1].ravel(), [0, 0, 0, 0, 0, 4, 5, 6, 0, 12, 13, 14])
    assert repr(rt.nn.Fold([4, 5], 2)) == "Fold(kernel_size=2, dilation=1, padding=0, stride=1)"


def test_gumbel_softmax_pdist_logsigmoid_match_paddle():
    x = np.array([[1, 2, 0.5], [0, -1, 3]], "float32")
    w = np.arange(6, dtype="float32").reshape(2, 3)
    t = rt.to_tensor(x, stop_gradient=False)
    y = F.gumbel_softmax(t, temperature=0.5)
    (y * rt.to_tensor(w)).sum().backward()
    soft = y.numpy()
    # Paddle 3.3's gradient is softmax's Jacobian alone (its kernel leaves out 1 / temperature)
    np.testing.assert_allclose(t.grad.numpy(), soft * (w - (soft * w).sum(-1, keepdims=True)), atol=1e-6)
    np.testing.assert_allclose(soft.sum(-1), [1, 1], rtol=1e-6)
    t = rt.to_tensor(x, stop_gradient=False)
    hard = F.gumbel_softmax(t, hard=True, axis=0)
    (hard * rt.to_tensor(w)).sum().backward()
    assert sorted(hard.numpy().sum(0)) == [1, 1, 1] and not t.grad.numpy().any()  # Paddle: one-hot, zero gradient
    rt.seed(4)
    first = run_with_grads(lambda x: F.gumbel_softmax(x, 0.7), [x])
    rt.seed(4)
    np.testing.assert_array_equal(run_with_grads(dy2st.to_static(lambda x: F.gumbel_softmax(x, 0.7)), [x])[0][0],
                                  first[0][0])
    with pytest.raises(ValueError, match="temperature must be greater than 0"):
        F.gumbel_softmax(rt.to_tensor(x), temperature=0.0)
    # Paddle 3.3: F.pdist(a, p) and a.grad of sum(pdist * arange(6)); ties share nothing under inf (each gets all)
    a = np.array([[0, 1, 2], [1, 1, 1], [3, -1, 0], [0, 1, 2]], "float32")
    for p, dist, grad in ((2.0, [1.414214, 4.123106, 0, 3, 1.414214, 4.123106],
                           [-0.727607, 0.485071, 0.485071, 0.828427, 2, -1.828427, 6.365641, -4.910428, -3.910428,
                            -6.466461, 2.425356, 5.253783]),
                          (float("inf"), [1, 3, 0, 2, 1, 3], [-1, 0, 0, 1, 3, -4, 9, -3, 0, -9, 0, 4]),
                          (0.0, [2, 3, 0, 3, 2, 3], [0] * 12)):
        (d,), _ = check_converted(lambda x, p=p: F.pdist(x, p), a)
        np.testing.assert_allclose(d, dist, atol=1e-6)
        t = rt.to_tensor(a, stop_gradient=False)
        (F.pdist(t, p) * rt.arange(6, dtype="float32")).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), np.reshape(grad, (4, 3)), atol=1e-5)
    t = rt.to_tensor(a, stop_gradient=False)
    (F.pdist(t, 3.0) * rt.arange(6, dtype="float32")).sum().backward()
    np.testing.assert_allclose(t.grad.numpy()[0], [-0.733269, 0.325897, 0.325897], atol=1e-5)
    np.testing.assert_allclose(F.logsigmoid(rt.to_tensor(x)).numpy(), F.log_sigmoid(rt.to_tensor(x)).numpy())


def test_vision_layers_saved_loaded_and_exported(tmp_path):
    class STN(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.loc = rt.nn.Linear(12, 6)

        def forward(self, x):
            theta = self.loc(x.reshape([-1, 12])).reshape([-1, 2, 3])
            grid = F.affine_grid(theta, [1, 1, 3, 4], align_corners=False)
            return F.grid_sample(x, grid, padding_mode="border", align_corners=False)

    rt.seed(1)
    check_saved(STN(), XS, tmp_path, tol=1e-6)
    check_onnx(STN(), XS, tol=1e-5)


def test_vision_errors():
    with pytest.raises(ValueError, match="give 5 \\* 2 blocks, but the input has 6"):
        F.fold(rt.ones([2, 12, 6]), [4, 5], [2, 2], strides=[1, 2], paddings=[1, 0])
    with pytest.raises(ValueError, match="divisible by the product of kernel_size"):
        F.fold(rt.ones([1, 7, 4]), [4, 4], 2)
    with pytest.raises(ValueError, match="equal top/bottom"):
        F.fold(rt.ones([1, 4, 4]), [4, 4], 2, paddings=[1, 0, 0, 1])
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(rt.to_tensor(XS), rt.to_tensor(GRID), padding_mode="wrap")
    with pytest.raises(ValueError, match="with grid \\[N, D_out, H_out, W_out, 3\\]"):
        F.grid_sample(rt.ones([1, 1, 2, 2, 2]), rt.to_tensor(GRID))


def _rms(x, w):
    return F.rms_norm(x, [3], w, eps=1e-6)


def test_rms_norm_as_documented():
    # Paddle 3.3 has no CPU kernel for F.rms_norm: checked against the formula its docstring gives
    x, w = np.random.default_rng(3).standard_normal((2, 4, 3)).astype("float32"), np.array([1, 2, 0.5], "float32")
    (out, inv), _ = check_converted(_rms, x, w)
    want_inv = 1 / np.sqrt((x * x).mean(-1) + 1e-6)
    np.testing.assert_allclose(inv, want_inv.ravel(), rtol=1e-5)
    np.testing.assert_allclose(out, x * want_inv[..., None] * w, rtol=1e-5)
    assert inv.dtype == np.float32 and inv.shape == (8,)
    with pytest.raises(ValueError, match="must end with normalized_shape"):
        F.rms_norm(rt.to_tensor(x), [4])


def _sampled(x):
    grid = F.affine_grid(x[:, 0, :2, :3], [x.shape[0], 1, 3, 5])  # N: a run-time size when the batch is unknown
    return F.grid_sample(x, grid, mode="nearest")


def test_unknown_batch_in_converted_code():
    x = np.random.default_rng(0).standard_normal((3, 2, 4, 4)).astype("float32")
    st = dy2st.to_static(_sampled, input_spec=[dy2st.InputSpec([None, 2, 4, 4], "float32")])
    for n in (3, 1):
        np.testing.assert_array_equal(st(rt.to_tensor(x[:n])).numpy(), _sampled(rt.to_tensor(x[:n])).numpy())


def test_grid_sample_3d_matches_paddle():
    x = np.arange(24, dtype="float32").reshape(1, 1, 2, 3, 4) ** 1.5 / 4
    grid = np.array([[[[[-0.9, 0.35, 0.2], [1.3, -0.6, -0.7]], [[-0.25, 1.1, 0.9], [0.55, 0.8, -1.2]]]]], "float32")
    # Paddle 3.3: F.grid_sample(x, grid, mode, padding_mode, align_corners) and, trilinear, grid's gradient of
    # sum(out * [[1, 2], [3, 4]])
    for (mode, padding_mode, align), values, grid_grad in (
            (("bilinear", "zeros", False), [10.29945, 0.0, 5.05229, 2.07233],
             [29.42701, 5.82701, 10.79366, 0, 0, 0, 2.19084, -64.95802, -25.26146, 2.33285, -15.54247, 27.63107]),
            (("bilinear", "reflection", True), [12.44426, 4.40268, 22.76398, 9.19604],
             [1.96554, 5.31275, 7.52454, -2.55645, 7.21371, 14.02069, 7.61432, -19.28469, 25.68705, 7.32854,
              18.24023, -35.17216]),
            (("nearest", "border", False), [22.36068, 1.29904, 24.05852, 9.12072], None)):
        xt, g = rt.to_tensor(x, stop_gradient=False), rt.to_tensor(grid, stop_gradient=False)
        out = F.grid_sample(xt, g, mode=mode, padding_mode=padding_mode, align_corners=align)
        (out * rt.to_tensor(np.arange(1, 5, dtype="float32").reshape(1, 1, 1, 2, 2))).sum().backward()
        np.testing.assert_allclose(out.numpy().ravel(), values, atol=1e-4)
        if grid_grad is not None:
            np.testing.assert_allclose(g.grad.numpy().ravel(), grid_grad, atol=5e-4, rtol=1e-5)
    check_converted(lambda x, g: F.grid_sample(x, g, align_corners=False), x, grid)
