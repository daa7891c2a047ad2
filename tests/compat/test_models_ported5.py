"""Segmentation and detection code ported by changing imports (PaddleSeg, PaddleDetection, Paddle's
hapi tutorials): logits resized with ``F.interpolate(logit, paddle.shape(x)[2:])``, an FCN upsampler
initialised with ``nn.initializer.Bilinear``, ``binary_cross_entropy_with_logits(pos_weight=...)``,
and ``paddle.Model.save(path, training=False)`` for deployment. Converted training equals eager bitwise."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec


from .helpers import train_same


class FCNHead(nn.Layer):
    def __init__(self, classes=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2D(3, 8, 3, stride=2, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                                      nn.Conv2D(8, 8, 3, stride=2, padding=1), nn.ReLU())
        self.cls = nn.Conv2D(8, classes, 1)
        self.up = nn.Conv2DTranspose(classes, classes, 4, stride=2, padding=1, groups=classes, bias_attr=False,
                                     weight_attr=paddle.ParamAttr(initializer=nn.initializer.Bilinear(),
                                                                  learning_rate=0.0))

    def forward(self, x):
        x_shape = paddle.shape(x)
        logit = self.up(self.cls(self.backbone(x)))
        return [F.interpolate(logit, x_shape[2:], mode="bilinear", align_corners=False)]


def _seg_loss(model, x, label):
    logit = model(x)[0]
    ce = F.cross_entropy(logit, label.unsqueeze(1), axis=1, ignore_index=255)
    onehot = F.one_hot(label * (label != 255).astype("int64"), 3).transpose([0, 3, 1, 2])
    bce = F.binary_cross_entropy_with_logits(logit, onehot, pos_weight=paddle.to_tensor([1.0, 2.0, 3.0]).reshape([3, 1, 1]))
    return ce + bce


def test_paddleseg_head_resizing_to_paddle_shape_trains_like_eager_and_serves_other_batches(tmp_path):
    # F.interpolate raised NotImplementedError for a Tensor size; nn.initializer.Bilinear and pos_weight
    # did not exist.
    rng = np.random.default_rng(0)
    data = []
    for _ in range(2):
        label = rng.integers(0, 3, (2, 8, 8))
        label[0, 0, :3] = 255
        data.append((rng.standard_normal((2, 3, 8, 8)).astype("float32"), label))
    eager, net = train_same(FCNHead, data, _seg_loss, opt=lambda p: paddle.optimizer.Momentum(0.01, parameters=p))
    assert float(abs(net.up.weight - nn.initializer.Bilinear()(paddle.zeros([3, 1, 4, 4]))).max()) == 0  # lr 0
    eager.eval()
    net.eval()
    spec = [InputSpec([None, 3, 8, 8], "float32")]  # an unknown batch: shape(x)[2:] is still known
    dy2st.save(dy2st.to_static(net, input_spec=spec), str(tmp_path / "seg"))
    x = paddle.to_tensor(rng.standard_normal((3, 3, 8, 8)).astype("float32"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "seg"))(x)[0].numpy(), eager(x)[0].numpy())


def test_a_size_known_only_at_run_time_resizes_like_eager():
    # it was refused: PaddleSeg exports with [None, 3, None, None] resize logits to paddle.shape(x)[2:]
    def resize(x, like):
        return F.interpolate(x, paddle.shape(like)[2:], mode="nearest")

    sf = dy2st.to_static(resize, input_spec=[InputSpec([1, 2, 3, 3]), InputSpec([1, 2, None, None])])
    x = paddle.to_tensor(np.arange(18, dtype="float32").reshape([1, 2, 3, 3]))
    for h, w in [(6, 6), (2, 5), (3, 3)]:
        like = paddle.ones([1, 2, h, w])
        np.testing.assert_array_equal(sf(x, like).numpy(), resize(x, like).numpy())
    assert sf(x, paddle.ones([1, 2, 6, 4])).numpy()[0, 0, :, 0].tolist() == [0, 0, 3, 3, 6, 6]
    with pytest.raises(TypeError, match="size must hold ints"):
        F.interpolate(paddle.ones([1, 2, 3, 3]), size=[2.5, 3])


def test_bce_with_logits_pos_weight_has_paddles_formula_and_gradient():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 3)).astype("float32") * 3, (rng.random((4, 3)) > 0.5).astype("float32")
    w = np.array([2.0, 0.5, 1.0], "float32")
    logit = paddle.to_tensor(x, stop_gradient=False)
    loss = F.binary_cross_entropy_with_logits(logit, paddle.to_tensor(y), pos_weight=paddle.to_tensor(w),
                                              reduction="none")
    pw = 1 + (w - 1) * y
    np.testing.assert_allclose(loss.numpy(), (1 - y) * x + pw * (np.log1p(np.exp(-abs(x))) + np.maximum(-x, 0)),
                               rtol=1e-6)
    loss.sum().backward()
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(logit.grad.numpy(), (1 - y) - pw * (1 - s), rtol=1e-5, atol=1e-6)
    layer = nn.BCEWithLogitsLoss(pos_weight=paddle.to_tensor(w))
    np.testing.assert_array_equal(layer(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(), loss.mean().numpy())


def test_bilinear_initializer_is_paddles_upsampling_filter():
    w = nn.initializer.Bilinear()(paddle.zeros([1, 1, 4, 4])).numpy()[0, 0]
    # Paddle's values: the row coordinate is the float (i / 4) % 4, so rows are not symmetric
    np.testing.assert_allclose(w[1], [0.1875, 0.65625, 0.75, 0.21875])
    np.testing.assert_allclose(w[:, 0], [0.0625, 0.1875, 0.1875, 0.0625])
    with pytest.raises(ValueError, match="square"):
        nn.initializer.Bilinear()(paddle.zeros([1, 1, 3, 4]))


def test_paddle_model_saves_an_inference_model_like_paddle_jit_save(tmp_path):
    # Model.save(path, training=False) raised NotImplementedError.
    paddle.seed(3)
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model = paddle.Model(net, inputs=[InputSpec([None, 4], "float32", "x")], labels=[InputSpec([None, 1], "int64", "y")])
    model.prepare(paddle.optimizer.Adam(0.01, parameters=net.parameters()), nn.CrossEntropyLoss())
    rng = np.random.default_rng(2)
    data = paddle.io.TensorDataset([paddle.to_tensor(rng.standard_normal((8, 4)).astype("float32")),
                                    paddle.to_tensor(rng.integers(0, 2, (8, 1)))])
    model.fit(data, epochs=1, batch_size=4, verbose=0)
    model.save(str(tmp_path / "infer"), training=False)
    loaded = dy2st.load(str(tmp_path / "infer"))
    x = paddle.to_tensor(rng.standard_normal((3, 4)).astype("float32"))
    np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())
