"""A converted Layer that calls a PyLayer saves as an inference model (the Paddle
save-inference-model test's SimplePyLayerNet): the PyLayer's forward ops are in the Program, so the
model loads and runs, through ``dy2st.load`` and the static Executor, at several batch sizes."""
import numpy as np

import dy2st
import runtime as rt
from runtime.autograd import PyLayer


class _Tanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = rt.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - rt.square(y))


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = rt.nn.Linear(4, 4)

    @dy2st.to_static(full_graph=True)
    def forward(self, x):
        out = _Tanh.apply(self._linear(x))
        return rt.mean(out), out


def test_pylayer_model_saves_for_inference(tmp_path):
    rt.seed(0)
    net = _Net()
    opt = rt.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x = rt.to_tensor(np.random.RandomState(0).rand(4, 4).astype("float32"))
    for _ in range(3):
        loss, pred = net(x)
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
    prefix = str(tmp_path / "model")
    dy2st.save(net, prefix, input_spec=[dy2st.InputSpec([None, 4])], output_spec=[pred])
    loaded = dy2st.load(prefix)
    rt.enable_static()
    try:
        exe = rt.static.Executor()
        prog, feeds, fetches = rt.static.load_inference_model(prefix, executor=exe)
        for n in (1, 3):
            xb = np.random.RandomState(n).rand(n, 4).astype("float32")
            got = exe.run(prog, feed={feeds[0]: xb}, fetch_list=fetches)[0]
            rt.disable_static()
            want = net(rt.to_tensor(xb))[1].numpy()
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(loaded(rt.to_tensor(xb)).numpy(), want)
            rt.enable_static()
    finally:
        rt.disable_static()
