"""``rt.set_default_dtype("float64")`` in converted code (PaddleScience-style scripts set it first):
Programs traced under float64 make their constants, creations and Python floats float64, training
steps (forward, ``rt.grad(create_graph=True)``, backward, optimizer update) run in float64 bitwise as
eagerly, and a Program traced under one default is not served after the default changes."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn
from runtime.static.train_step import is_train_step


@pytest.fixture
def f64():
    """float64 as the default for the test; float32 again afterwards, whatever happened (tests run
    in parallel workers that share nothing, but the next test in this one must see float32)."""
    rt.set_default_dtype("float64")
    try:
        yield
    finally:
        rt.set_default_dtype("float32")


class _Net(nn.Layer):
    """A tanh network ``1 -> 8 -> 8 -> 1`` (a PINN's u(x))."""

    def __init__(self, n_in=1, hidden=8, n_out=1):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(n_in, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc3(rt.tanh(self.fc2(rt.tanh(self.fc1(x)))))


def _pinn_step(net, opt):
    """One step of u' = cos(x), u(0) = 0: the residual's derivative through rt.grad(create_graph=True),
    Python-float constants and a creation (``rt.zeros``) of the default dtype."""
    def step(x):
        x = x.detach()
        x.stop_gradient = False  # collocation points: a leaf made here (a training Program takes no input gradient)
        u = net(x)
        du, = rt.grad(u, x, create_graph=True)
        residual = du - rt.cos(x)
        boundary = net(rt.zeros([1, 1]))
        loss = (residual * residual).mean() + 0.5 * (boundary * boundary).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return step


def _mlp_step(net, opt):
    def step(x, y):
        loss = rt.nn.functional.mse_loss(net(x), y) + 1e-3 * (net.fc1.weight ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return step


def _train(make_step, net_args, opt_cls, data, convert):
    rt.seed(7)
    net = _Net(*net_args)
    opt = opt_cls(learning_rate=0.01, parameters=net.parameters())
    step = make_step(net, opt)
    if convert:
        step = dy2st.to_static(step)
    losses = [step(*batch).numpy() for batch in data]
    if convert:  # the compiled training step: forward, backward and update in one Program
        program = step.program_cache.last().main_program
        assert is_train_step(program)
        assert all(str(v.dtype) == "float64" for b in program.blocks for v in b.vars.values()
                   if str(v.dtype).startswith("float") and v.kind == "tensor"), "a non-float64 value in the Program"
    return losses, [p.numpy() for p in net.parameters()], opt


def _assert_same_float64_training(make_step, net_args, opt_cls, data):
    want_losses, want_params, _ = _train(make_step, net_args, opt_cls, data, convert=False)
    got_losses, got_params, opt = _train(make_step, net_args, opt_cls, data, convert=True)
    for a, b in zip(want_losses + want_params, got_losses + got_params):
        assert a.dtype == b.dtype == np.float64
        np.testing.assert_array_equal(b, a)
    assert all(v.dtype == np.float64 for v in opt.state_dict().values() if isinstance(v, rt.Tensor))


def test_pinn_trains_in_float64_as_eagerly(f64):
    def data():
        return [(rt.linspace(0.0, 3.0, 6).reshape([6, 1]) + 0.1 * k,) for k in range(3)]
    assert data()[0][0].dtype == "float64"
    _assert_same_float64_training(_pinn_step, (), rt.optimizer.Adam, data())


def test_mlp_trains_in_float64_as_eagerly(f64):
    rng = np.random.default_rng(0)
    data = [(rt.to_tensor(rng.standard_normal((5, 3)).tolist()), rt.to_tensor(rng.standard_normal((5, 2)).tolist()))
            for _ in range(3)]
    _assert_same_float64_training(_mlp_step, (3, 6, 2), rt.optimizer.Momentum, data)


def test_a_program_is_not_served_after_the_default_changes():
    @dy2st.to_static
    def f(x):
        return x * rt.to_tensor(2.0) + rt.ones([2]) + rt.full([2], 0.1)

    x = rt.to_tensor(np.array([1.0, 2.0], "float32"))
    try:
        for default in ("float32", "float64", "float32", "float64"):
            rt.set_default_dtype(default)
            want = f.dygraph_function(x)
            for _ in range(2):  # the first call after a change, then the cache-hit path
                got = f(x)
                assert got.dtype == want.dtype == default
                np.testing.assert_array_equal(got.numpy(), want.numpy())
    finally:
        rt.set_default_dtype("float32")
    assert f._traced_count == 2  # one Program per default, each served again from the cache


def test_spec_traced_programs_follow_the_default(f64):
    net = _Net(2, 4, 1)
    fn = dy2st.to_static(net.forward, input_spec=[rt.static.InputSpec([None, 2], "float64")])
    x = rt.rand([3, 2])
    np.testing.assert_array_equal(fn(x).numpy(), net.forward.__func__(net, x).numpy())
    rt.set_default_dtype("float32")
    y = fn(x)  # parameters stay float64: the same result under a float32 default
    assert y.dtype == "float64"


def test_float64_model_saves_and_loads(f64, tmp_path):
    net = _Net(2, 4, 1)
    x = rt.rand([3, 2])
    want = net(x).numpy()
    path = str(tmp_path / "m")
    dy2st.save(net, path, input_spec=[rt.static.InputSpec([None, 2], "float64")])
    rt.set_default_dtype("float32")  # loading does not depend on the default
    loaded = dy2st.load(path)
    got = loaded(x)
    assert got.dtype == "float64"
    np.testing.assert_array_equal(got.numpy(), want)
    rt.save(net.state_dict(), path + ".pdparams")
    state = rt.load(path + ".pdparams")
    assert all(v.dtype == "float64" for v in state.values())


def test_float64_model_exports_to_onnx(f64, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    net = _Net(2, 4, 1)
    path = str(tmp_path / "m.onnx")
    dy2st.export_onnx(net, path, input_spec=[rt.static.InputSpec([None, 2], "float64")])
    sess = ort.InferenceSession(path)
    assert sess.get_inputs()[0].type == "tensor(double)"
    x = rt.rand([3, 2])
    got, = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, net(x).numpy(), rtol=1e-12, atol=1e-14)  # onnxruntime's own kernels


def _carried_float(x, n):
    s = 0.0
    i = 0
    while i < n:  # a tensor loop: `s` is carried as a 0-d tensor standing for a Python float
        s = s + 0.1
        i += 1
    return x * s


def _shape_ratio(x):
    return x * (x.shape[0] / 7) + x ** (x.shape[0] - 4)  # a run-time dim's int: true division, negative power


def test_python_floats_in_converted_code_take_the_default(f64):
    """Python floats that converted code holds as tensors (loop carries, an int dim divided) are float64
    under a float64 default: float32 ones would round them where eager Python floats do not."""
    x, n = rt.to_tensor([1.0, 2.0, 3.0]), rt.to_tensor(3)
    spec = [rt.static.InputSpec([None], "float64")]
    for fn, args, input_spec in ((_carried_float, (x, n), None), (_shape_ratio, (x,), spec)):
        want = fn(*args)
        got = dy2st.to_static(fn, input_spec=input_spec)(*args)
        assert got.dtype == want.dtype == "float64"
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def _lists(x):
    n = x.shape[0]
    return (rt.to_tensor([x.sum(), 1.5]), rt.to_tensor([n, 1.5]), rt.to_tensor([n, n + 1]),
            rt.to_tensor([x.sum(), x.sum()]), rt.to_tensor([x.sum(), 2]), rt.to_tensor([x.sum().astype("int32"), 2]))


def test_lists_holding_tensors_take_numpys_dtype_as_in_paddle():
    """A list with a Tensor among its items takes the dtype numpy gives the values (float32 Tensor and a
    Python float: float64), whatever the default; one of Python numbers only (``n`` is an int eagerly)
    takes the default: Paddle 3.3's dtypes, eagerly and converted."""
    paddles = {"float32": ["float64", "float32", "int64", "float32", "float64", "int64"],
               "float64": ["float64", "float64", "int64", "float32", "float64", "int64"]}
    x = rt.ones([3], "float32")
    try:
        for default, want in paddles.items():
            rt.set_default_dtype(default)
            converted = dy2st.to_static(_lists, input_spec=[rt.static.InputSpec([None], "float32")])(x)
            for e, c, d in zip(_lists(x), converted, want):
                assert e.dtype == c.dtype == d
                np.testing.assert_array_equal(c.numpy(), e.numpy())
    finally:
        rt.set_default_dtype("float32")
