"""Saving as Paddle's SE-ResNeXt test does: a forward converted without an ``input_spec`` takes
``(image, label)``, and ``dy2st.save`` gets named specs for both with ``input_names_after_prune``
and ``output_spec`` keeping only the prediction; the saved model then takes the image alone, and
serves eager's predictions at every batch size, loaded or read back in static mode."""
import numpy as np

import dy2st
import runtime as paddle
from runtime.static import InputSpec


class _Classifier(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(6, 3)

    @dy2st.to_static(full_graph=True)
    def forward(self, image, label):
        logits = self.fc(image)
        loss = paddle.nn.functional.cross_entropy(logits, label)
        return paddle.nn.functional.softmax(logits), loss


def test_input_names_after_prune_without_a_declared_spec(tmp_path):
    paddle.seed(3)
    net = _Classifier()
    opt = paddle.optimizer.Momentum(learning_rate=paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=2),
                                    parameters=net.parameters())
    rng = np.random.default_rng(0)
    for _ in range(2):
        x = paddle.to_tensor(rng.standard_normal((4, 6)).astype("float32"))
        pred, loss = net(x, paddle.to_tensor(rng.integers(0, 3, (4, 1))))
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
        lr = opt._global_learning_rate()
        assert lr.shape == [] and lr.dtype == "float32" and float(lr) == np.float32(opt.get_lr())
    prefix = str(tmp_path / "inference" / "cls")
    dy2st.save(net, prefix, output_spec=[pred], input_names_after_prune=["x"], clip_extra=False,
               input_spec=[InputSpec([None, 6], name="x"), InputSpec([None, 1], "int64", name="y")])
    loaded = dy2st.load(prefix)
    loaded.eval()
    net.eval()
    for batch in (1, 5):
        image = rng.standard_normal((batch, 6)).astype("float32")
        want = net(paddle.to_tensor(image), paddle.zeros([batch, 1], dtype="int64"))[0].numpy()
        np.testing.assert_array_equal(loaded(paddle.to_tensor(image)).numpy(), want)
        paddle.enable_static()
        try:
            exe = paddle.static.Executor()
            prog, feeds, fetches = paddle.static.io.load_inference_model(
                str(tmp_path / "inference"), exe, model_filename="cls.pdmodel", params_filename="cls.pdiparams")
            assert feeds == ["x"]
            np.testing.assert_array_equal(exe.run(prog, feed={"x": image}, fetch_list=fetches)[0], want)
        finally:
            paddle.disable_static()
