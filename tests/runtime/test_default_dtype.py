"""``rt.set_default_dtype`` / ``get_default_dtype`` (Paddle 2.x's): which creations follow the default
float dtype and which stay float32, each as PaddlePaddle 3.3 gives it (checked against it)."""
import numpy as np
import pytest

import runtime as rt
from runtime import nn


@pytest.fixture
def default():
    """``default(name)`` sets the default dtype for the test; float32 again afterwards, even when the test
    fails (the next test in this worker must see float32)."""
    try:
        yield rt.set_default_dtype
    finally:
        rt.set_default_dtype("float32")


def test_accepted_spellings_and_paddles_errors(default):
    for spelling in ("float64", np.float64, np.dtype("float64"), rt.float64):
        default("float32")
        default(spelling)
        assert rt.get_default_dtype() == "float64" and type(rt.get_default_dtype()) is str
    for bad in ("int32", "float", "double", "complex64"):
        with pytest.raises(TypeError, match=r"set_default_dtype only supports \[float16, float32, float64, "
                                            r"bfloat16\] , but received " + bad):
            default(bad)
    with pytest.raises(NotImplementedError, match="no bfloat16"):
        default("bfloat16")
    assert rt.get_default_dtype() == "float64"  # a refused setting changes nothing


# (what, make): float64 under a float64 default, as in Paddle 3.3
_FOLLOWS = [
    ("to_tensor(float)", lambda: rt.to_tensor(1.0)),
    ("to_tensor([int, float])", lambda: rt.to_tensor([1, 2.0])),
    ("to_tensor([np.float32 scalars])", lambda: rt.to_tensor([np.float32(1), np.float32(2)])),
    ("assign(list)", lambda: rt.assign([1.5, 2.0])),
    ("zeros", lambda: rt.zeros([2])), ("ones", lambda: rt.ones([2])), ("empty", lambda: rt.empty([2])),
    ("full(float)", lambda: rt.full([2], 1.0)), ("full(int)", lambda: rt.full([2], 1)),
    ("rand", lambda: rt.rand([2])), ("randn", lambda: rt.randn([2])), ("uniform", lambda: rt.uniform([2])),
    ("normal", lambda: rt.normal(shape=[2])), ("standard_normal", lambda: rt.standard_normal([2])),
    ("linspace", lambda: rt.linspace(0, 1, 3)), ("logspace", lambda: rt.logspace(0, 1, 3)),
    ("arange(floats)", lambda: rt.arange(0, 1.0, 0.5)), ("eye", lambda: rt.eye(2)),
    ("zeros_like(dtype=)", lambda: rt.zeros_like(rt.to_tensor([1]), dtype="float64")),
    ("where(scalars)", lambda: rt.where(rt.to_tensor([True, False]), 1.5, 2.5)),
    ("Linear", lambda: nn.Linear(2, 3).weight), ("Conv2D", lambda: nn.Conv2D(1, 2, 3).weight),
    ("BatchNorm1D mean", lambda: nn.BatchNorm1D(3)._mean), ("BatchNorm2D var", lambda: nn.BatchNorm2D(3)._variance),
    ("LayerNorm", lambda: nn.LayerNorm(3).weight), ("GroupNorm", lambda: nn.GroupNorm(1, 3).weight),
    ("InstanceNorm2D", lambda: nn.InstanceNorm2D(3).scale), ("Embedding", lambda: nn.Embedding(3, 2).weight),
    ("GRUCell", lambda: nn.GRUCell(2, 3).weight_ih), ("LSTM", lambda: nn.LSTM(2, 3).parameters()[0]),
    ("MultiHeadAttention", lambda: nn.MultiHeadAttention(4, 2).q_proj.weight),
    ("Layer(dtype=float16).create_parameter", lambda: nn.Layer(dtype="float16").create_parameter([2])),
    ("create_parameter(dtype=)", lambda: rt.create_parameter([2], "float64")),
]

# (what, make, dtype): the same under either default
_KEEPS = [
    ("to_tensor(int)", lambda: rt.to_tensor(1), "int64"),
    ("to_tensor(np float32)", lambda: rt.to_tensor(np.ones(2, "float32")), "float32"),
    ("to_tensor(np float64)", lambda: rt.to_tensor(np.ones(2)), "float64"),
    ("to_tensor([float32 Tensor])", lambda: rt.to_tensor([rt.ones([1], "float32")]), "float32"),
    ("full(bool)", lambda: rt.full([2], True), "bool"), ("arange(ints)", lambda: rt.arange(3), "int64"),
    ("ones_like(float32)", lambda: rt.ones_like(rt.ones([2], "float32")), "float32"),
    ("float32 * Python float", lambda: rt.ones([2], "float32") * 1.5, "float32"),
    ("int * Python float", lambda: rt.to_tensor([1, 2]) * 1.5, "float32"),
    ("int / int", lambda: rt.to_tensor([1, 2]) / rt.to_tensor([1, 2]), "float32"),
    ("sqrt(int)", lambda: rt.sqrt(rt.to_tensor([1, 2])), "float32"),
    ("one_hot", lambda: nn.functional.one_hot(rt.to_tensor([1]), 3), "float32"),
    ("legacy BatchNorm(dtype='float32')", lambda: nn.BatchNorm(3).weight, "float32"),
    ("create_parameter('float32')", lambda: rt.create_parameter([2], "float32"), "float32"),
    ("InputSpec", lambda: rt.static.InputSpec([2]), "float32"),
]


def test_creations_follow_the_default(default):
    default("float64")
    for what, make in _FOLLOWS:
        assert make().dtype == "float64", what
    for what, make, dtype in _KEEPS:
        assert make().dtype == dtype, what
    assert nn.Layer()._dtype == "float32" and nn.Linear(1, 1)._dtype == "float64"  # as Paddle's
    rt.enable_static()
    try:
        assert rt.static.data("x", [2]).dtype == "float64"
    finally:
        rt.disable_static()


def test_float16_default(default):
    default("float16")
    assert rt.zeros([2]).dtype == rt.to_tensor(1.0).dtype == nn.Linear(2, 3).weight.dtype == "float16"
    assert nn.BatchNorm2D(2).weight.dtype == "float32"  # Paddle keeps batch norm in float32 then


def test_eager_float64_gradients_and_optimizer_state(default):
    default("float64")
    rt.seed(0)
    net = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = rt.optimizer.Adam(learning_rate=0.1, parameters=net.parameters())
    x = rt.to_tensor([[0.1, 0.2], [0.3, -0.4]], stop_gradient=False)
    du, = rt.grad(net(x).sum(), x, create_graph=True)
    loss = (du * du).mean()
    loss.backward()
    w = net[0].weight
    g = w.grad.numpy()
    assert loss.dtype == du.dtype == w.grad.dtype == "float64"

    def f(w0):  # the same loss in numpy, float64 (derivative of the net's sum w.r.t. x, by hand)
        h = np.tanh(x.numpy() @ w0 + net[0].bias.numpy())
        d = ((1 - h * h) * net[2].weight.numpy()[:, 0]) @ w0.T
        return (d * d).mean()
    w0, eps = w.numpy(), 1e-6
    fd = np.array([[(f(w0 + eps * e) - f(w0 - eps * e)) / (2 * eps) for e in row]
                   for row in np.eye(w0.size).reshape(*w0.shape, *w0.shape)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)  # float64-accurate, not float32's ~1e-3
    opt.step()
    assert all(v.dtype == "float64" for v in opt.state_dict().values() if isinstance(v, rt.Tensor))
    assert all(p.dtype == "float64" for p in net.parameters())


def test_back_to_float32_is_todays_behaviour(default):
    def made():
        rt.seed(3)
        return [rt.randn([3]), rt.to_tensor([0.1, 0.2]), rt.linspace(0, 1, 4), nn.Linear(2, 2).weight]
    before = made()
    default("float64")
    assert all(t.dtype == "float64" for t in made())
    default("float32")
    assert rt.get_default_dtype() == "float32"
    for a, b in zip(before, made()):
        assert a.dtype == b.dtype == "float32"
        np.testing.assert_array_equal(b.numpy(), a.numpy())
