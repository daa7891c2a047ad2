"""Layer.to / astype / float / float16 (Paddle's): the floating-point parameters and buffers are cast
in place (the same objects an optimizer holds), and a converted forward traced before the cast
traces again for the new dtypes (it used to be missing: AttributeError)."""
import numpy as np

import dy2st
import runtime as rt


class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 3)
        self.register_buffer("scale", rt.full([3], 1.5))
        self.register_buffer("count", rt.zeros([1], "int64"))

    def forward(self, x):
        y = self.fc(x) * self.scale
        if y.mean() > 0:
            y = y * 2
        return y


def test_casts_keep_the_objects_and_cast_only_floats():
    net = Net()
    weight = net.fc.weight
    assert net.to(dtype="float64") is net and net.to("cpu") is net
    assert net.fc.weight is weight and weight.dtype == "float64" and net.scale.dtype == "float64"
    assert net.count.dtype == "int64"
    net.float16(excluded_layers=[rt.nn.Linear])
    assert net.fc.weight.dtype == "float64" and net.scale.dtype == "float16"
    net.astype("float32")
    assert net.fc.weight.dtype == "float32" and net.scale.dtype == "float32"
    net.float()
    assert net.fc.bias.dtype == "float32"


def test_a_converted_forward_traces_again_after_a_cast():
    rt.seed(0)
    net = Net()
    sf = dy2st.to_static(net)
    x = np.random.default_rng(0).standard_normal((2, 4))
    for dtype in ("float32", "float64", "float32"):
        net.to(dtype=dtype)
        xt = rt.to_tensor(x.astype(dtype))
        got = sf(xt)
        want = Net.forward(net, xt)
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(sf.forward.program_cache) == 2  # float32 again: the first Program serves it


def test_an_optimizer_made_before_the_cast_updates_the_cast_parameters():
    rt.seed(1)
    net = Net()
    opt = rt.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())
    net.to(dtype="float64")
    before = net.fc.weight.numpy().copy()
    net(rt.to_tensor(np.ones((2, 4)))).sum().backward()
    opt.step()
    assert net.fc.weight.dtype == "float64" and not np.array_equal(net.fc.weight.numpy(), before)
