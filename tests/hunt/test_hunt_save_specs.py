"""dy2st.save takes input_spec as to_static does: nested lists of InputSpec (the saved model is
fed their tensors flat, in order) and Python constants, fixed in the saved Program.
rt.load(prefix) reads such a model's state_dict."""
import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec


class _Pair(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 3)

    def forward(self, xs, k=2):
        return self.fc(xs[0]) * k + xs[1]


def test_save_nested_and_constant_input_spec(tmp_path):
    net = _Pair()
    net.eval()
    x, y = rt.to_tensor(np.random.rand(2, 3).astype("float32")), rt.to_tensor(np.ones([2, 3], "float32"))
    path = str(tmp_path / "pair")
    dy2st.save(net, path, input_spec=[[InputSpec([None, 3]), InputSpec([None, 3])], 3])
    loaded = dy2st.load(path)
    np.testing.assert_allclose(loaded(x, y).numpy(), net([x, y], 3).numpy(), rtol=1e-6)


def test_rt_load_of_a_saved_model_prefix_gives_its_state_dict(tmp_path):
    # Paddle's paddle.load(prefix) of a paddle.jit.save model: the Layer's state_dict
    net = _Pair()
    path = str(tmp_path / "pair")
    dy2st.save(net, path, input_spec=[[InputSpec([None, 3]), InputSpec([None, 3])]])
    fresh = _Pair()
    fresh.set_state_dict(rt.load(path))
    for (k, a), (_, b) in zip(net.state_dict().items(), fresh.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_save_a_bound_method_keeps_its_layer(tmp_path):
    # Paddle saves `layer.some_method` with the layer's parameters; it was "missing argument 'x'"
    net = _Pair()
    x, y = rt.to_tensor(np.random.rand(2, 3).astype("float32")), rt.to_tensor(np.ones([2, 3], "float32"))
    path = str(tmp_path / "method")
    dy2st.save(net.forward, path, input_spec=[[InputSpec([None, 3]), InputSpec([None, 3])]])
    np.testing.assert_allclose(dy2st.load(path)(x, y).numpy(), net([x, y]).numpy(), rtol=1e-6)
