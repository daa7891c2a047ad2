"""``paddle.vision.ops.yolo_loss`` (the YOLOv3 training loss Paddle's yolov3 dygraph-to-static test
trains with): per-image losses equal Paddle 3.3's on seeded heads (values below were computed with
Paddle's CPU kernel), converted code gives eager's losses and gradients bitwise, and the gradient
agrees with finite differences."""
import numpy as np

import dy2st
import runtime as paddle

ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45]


def _case(seed, mask, classes=2, n=2, hw=4, boxes=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (n, len(mask) * (5 + classes), hw, hw)).astype("float32")
    gt = np.concatenate([rng.uniform(0.05, 0.95, (n, boxes, 2)), rng.uniform(0.05, 0.6, (n, boxes, 2))], -1)
    gt = gt.astype("float32")
    gt[1, -1] = 0  # a padding box (zero size) is skipped
    label = rng.integers(0, classes, (n, boxes)).astype("int32")
    score = rng.uniform(0.5, 1, (n, boxes)).astype("float32")
    return x, gt, label, score


# (seed, anchor_mask, with gt_score, label smoothing) -> Paddle 3.3's losses and the sum of d(sum loss)/dx
CASES = [((0, [0, 1, 2], False, True), [55.16946029663086, 53.78417205810547], 35.303192138671875),
         ((1, [3, 4], True, False), [25.638540267944336, 23.96719741821289], 31.072479248046875)]


def _loss_fn(mask, use_score, smooth):
    def loss(x, gt, label, score):
        return paddle.vision.ops.yolo_loss(x, gt, label, ANCHORS, mask, 2, 0.5, 8,
                                           gt_score=score if use_score else None, use_label_smooth=smooth)
    return loss


def _run(fn, arrays):
    x = paddle.to_tensor(arrays[0], stop_gradient=False)
    out = fn(x, *[paddle.to_tensor(a) for a in arrays[1:]])
    out.sum().backward()
    return out.numpy(), x.grad.numpy()


def test_losses_match_paddle_and_converted_matches_eager():
    for (seed, mask, use_score, smooth), want, grad_sum in CASES:
        arrays = _case(seed, mask)
        fn = _loss_fn(mask, use_score, smooth)
        eager, static = _run(fn, arrays), _run(dy2st.to_static(fn), arrays)
        np.testing.assert_allclose(eager[0], want, rtol=2e-6)
        np.testing.assert_allclose(eager[1].sum(), grad_sum, rtol=1e-5)
        assert eager[0].tobytes() == static[0].tobytes() and eager[1].tobytes() == static[1].tobytes()


def test_gradient_against_finite_differences():
    (seed, mask, use_score, smooth), _, _ = CASES[1]
    x, gt, label, score = _case(seed, mask)
    x = x.astype("float64")
    fn = _loss_fn(mask, use_score, smooth)
    _, grad = _run(fn, (x, gt.astype("float64"), label, score.astype("float64")))
    rng = np.random.default_rng(7)
    for flat in rng.choice(x.size, 6, replace=False):
        step = np.zeros(x.size)
        step[flat] = 1e-6
        up, down = (fn(paddle.to_tensor(x + s.reshape(x.shape)), paddle.to_tensor(gt.astype("float64")),
                       paddle.to_tensor(label), paddle.to_tensor(score.astype("float64"))).numpy().sum()
                    for s in (step, -step))
        np.testing.assert_allclose(grad.reshape(-1)[flat], (up - down) / 2e-6, rtol=1e-4, atol=1e-6)
