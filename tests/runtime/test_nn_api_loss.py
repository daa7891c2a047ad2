"""CTC, margin, N-pair and hierarchical-sigmoid losses (runtime/ops/nn_ctc.py, nn_loss_nnapi.py,
runtime/nn/loss_nnapi.py): values and gradients as Paddle 3.3 gives them (hard-coded below, from
paddle.nn.functional in a scratch script on the same inputs), converted against eager bitwise with
gradients, a loss layer saved/loaded; the errors."""
import numpy as np
import pytest

import runtime as rt
import runtime.nn.functional as F
from nnapi_helpers import check_converted, check_saved

XI = np.array([-1.26, 1.51, 1.35, 0.78, 0.26, -0.31, 1.46, 1.96, 1.8, 1.32, 0.36, -1.21, -0.0, 0.66, -1.29, 0.4, 0.43,
               0.7, -1.18, -0.66], "float32").reshape(4, 5)
W = np.array([-0.44, -1.17, 1.74, -0.5, 0.33, -0.26, 1.58, 1.32, 0.63, -2.2, 0.05, 0.68, 1.0, -0.62, 1.82, -1.32,
              -0.66, 0.94, 0.05, 2.0, 0.19, -0.63, -0.38, -1.09, -1.28], "float32").reshape(5, 5)
B = np.array([[0.63], [0.58], [1.29], [-0.75], [1.69]], "float32")


def _grads(fn, *arrays):
    """fn's value and the first input's gradient of its sum."""
    ts = [rt.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in arrays]
    out = fn(*ts)
    out.sum().backward()
    return out.numpy(), ts[0].grad.numpy()


def test_ctc_loss_matches_paddle():
    x = np.random.default_rng(0).standard_normal((5, 2, 4)).astype("float32")
    lab, il, ll = np.array([[1, 2], [3, 3]], "int32"), np.array([5, 4]), np.array([2, 2])
    loss, grad = _grads(lambda x, *a: F.ctc_loss(x, *a), x, lab, il, ll)
    # Paddle 3.3: F.ctc_loss(x, lab, il, ll) (mean) and x.grad[0]
    np.testing.assert_allclose(loss, 2.4334, atol=1e-4)
    np.testing.assert_allclose(grad[0].ravel(), [-0.04841, -0.10144, 0.09452, 0.05533, -0.0105, 0.04333, 0.11119,
                                                 -0.14403], atol=1e-5)
    check_converted(lambda x, *a: F.ctc_loss(x, *a, reduction="none", norm_by_times=True), x, lab, il, ll)
    # Paddle: a label no alignment of the steps can produce gives 0 (and zero gradient), not inf
    loss, grad = _grads(lambda x, *a: F.ctc_loss(x, *a, reduction="none"), x[:3, :1],
                        np.array([[1, 1, 1]], "int32"), np.array([3]), np.array([3]))
    assert loss.tolist() == [0.0] and not grad.any()
    m = rt.nn.CTCLoss(blank=3, reduction="sum")
    assert float(m(rt.to_tensor(x), rt.to_tensor(lab - 1), rt.to_tensor(il), rt.to_tensor(ll))) > 0
    with pytest.raises(ValueError, match="other than the blank 0"):
        F.ctc_loss(rt.to_tensor(x), rt.to_tensor(lab * 0), rt.to_tensor(il), rt.to_tensor(ll))


def test_margin_losses_match_paddle():
    # Paddle 3.3 on XI: the losses ("none") and XI.grad[0] of their sum
    mm, g = _grads(lambda x, y, w: F.multi_margin_loss(x, y, p=2, margin=0.5, weight=w, reduction="none"),
                   XI, np.array([1, 0, 4, 2]), np.array([0.5, 1, 1.5, 2, 0.8], "float32"))
    np.testing.assert_allclose(mm, [0.02312, 2.41748, 2.26648, 0.02787], atol=1e-5)
    np.testing.assert_allclose(g[0], [0.0, -0.136, 0.136, 0.0, 0.0], atol=1e-5)
    labels = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 1, 1, 1], [4, 4, -1, 0, 0]])
    mlm, g = _grads(lambda x, y: F.multi_label_margin_loss(x, y, reduction="none"), XI, labels)
    np.testing.assert_allclose(mlm, [2.736, 0.0, 0.0, 2.796], atol=1e-5)
    np.testing.assert_allclose(g[0], [-0.6, 0.4, 0.4, -0.6, 0.4], atol=1e-5)
    tm, g = _grads(lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, margin=1.5, swap=True,
                                                                       reduction="none"),
                   XI[:, :3], XI[:, 1:4], XI[:, 2:])
    np.testing.assert_allclose(tm, [3.54459, 2.63487, 1.28903, 1.43034], atol=1e-5)
    np.testing.assert_allclose(g[0], [-0.97791, 0.05649, 0.20123], atol=1e-5)
    npair, g = _grads(lambda a, p, y: F.npair_loss(a, p, y, 0.01), XI[:, :3], XI[:, 1:4], np.array([1, 2, 1, 3]))
    np.testing.assert_allclose(npair, 1.73812, atol=1e-5)
    np.testing.assert_allclose(g[0], [0.17441, 0.20035, 0.18542], atol=1e-5)
    check_converted(_label_margin, XI, labels)
    check_converted(_class_margin, XI, np.array([1, 0, 4, 2]))
    check_converted(_cosine_triplet, XI[:, :3], XI[:, 1:4], XI[:, 2:])


def _label_margin(x, y):
    return F.multi_label_margin_loss(x, y)


def _class_margin(x, y):
    return F.multi_margin_loss(x, y, p=1)


def _cosine_distance(u, v):
    return 1.0 - F.cosine_similarity(u, v)


def _cosine_triplet(a, p, n):
    return rt.nn.TripletMarginWithDistanceLoss(distance_function=_cosine_distance)(a, p, n)


def test_hsigmoid_loss_matches_paddle(tmp_path):
    label = np.array([0, 5, 3, 2])
    # Paddle 3.3: F.hsigmoid_loss(XI, label, 6, W, B) and W.grad[0] of its sum; then with a custom tree
    out, gw = _grads(lambda w, x, y, b: F.hsigmoid_loss(x, y, 6, w, b), W, XI, label, B)
    np.testing.assert_allclose(out.ravel(), [4.52204, 5.86298, 6.41199, 4.67999], atol=1e-5)
    np.testing.assert_allclose(gw[0], [0.56546, 0.44183, 2.04985, 0.96669, -0.40467], atol=1e-5)
    table = np.array([[0, 2, -1], [1, 3, 4], [0, -1, -1], [2, 4, 1]])
    code = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
    custom = F.hsigmoid_loss(rt.to_tensor(XI), rt.to_tensor(label), 6, rt.to_tensor(W), rt.to_tensor(B),
                             path_table=rt.to_tensor(table), path_code=rt.to_tensor(code))
    np.testing.assert_allclose(custom.numpy().ravel(), [4.52204, 7.55432, 1.66583, 5.43516], atol=1e-5)
    layer = rt.nn.HSigmoidLoss(5, 6)
    assert {k: v.shape for k, v in layer.state_dict().items()} == {"weight": [5, 5], "bias": [5, 1]}
    layer.set_state_dict({"weight": rt.to_tensor(W), "bias": rt.to_tensor(B)})
    np.testing.assert_array_equal(layer(rt.to_tensor(XI), rt.to_tensor(label)).numpy(), out)
    check_converted(lambda x: layer(x, rt.to_tensor(label)), XI)
    check_saved(layer, (XI, label), tmp_path, tol=1e-6)
    with pytest.raises(ValueError, match="num_classes must not be less than 2"):
        rt.nn.HSigmoidLoss(5, 1)
