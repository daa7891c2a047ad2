"""Scenarios of Paddle's test_cinn, test_cinn_prim, test_cinn_prim_gelu, test_cinn_prim_layer_norm
and test_cinn_prim_mean, rewritten: small layers (a Linear then softmax, `full_like` made trainable
inside `forward`, `gelu` both ways, `layer_norm` over `x.shape[1:]` with its weight and bias as
inputs, `paddle.tensor.mean` then `mean(out, -1, True)` of a 0-d value) trained with SGD,
converted with ``build_strategy.build_cinn_pass`` (or ``backend="CINN"``) and eagerly: outputs and
input gradients are bitwise equal at every step. There is no CINN build here
(``is_compiled_with_cinn()``/``is_run_with_cinn()`` say False) and no prim decomposition (the
``core._set_prim_*_enabled`` switches are recorded and change nothing), so where
Paddle checks that `softmax` was split into small ops, this checks what the Programs hold:
``get_concrete_program`` gives Paddle's ``(concrete_program, partial_program_layer)`` pair, whose
``train_program`` has the forward ops and their gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import tensor
from runtime.base import core


def _cinn(net):
    s = rt.static.BuildStrategy()
    s.build_cinn_pass = True
    return dy2st.to_static(net, build_strategy=s)


class PrimeNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return F.softmax(y)


class FullLikeNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.relu = rt.nn.functional.relu
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x):
        y = rt.full_like(x, 1.0)
        y.stop_gradient = False
        z = self.fc(x) * y
        out = y + z
        return self.relu(out)


class GeluNet(rt.nn.Layer):
    def __init__(self, approximate):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)  # unused, as in Paddle's test: SGD steps over no gradient
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


class MeanNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)

    def forward(self, x):
        return tensor.mean(x)


class LayerNormNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(64, 64)

    def forward(self, x, w, b):
        n_shape = x.shape[1:]
        out = F.layer_norm(x, n_shape, w, b)
        return out[0]


def _train(make, data, convert, steps=4, loss_args=()):
    rt.seed(2022)
    net = make()
    sgd = rt.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    core._set_prim_all_enabled(convert is not None)  # recorded; the ops stay whole here
    core._add_skip_comp_ops("sqrt")
    if convert is not None:
        assert core._is_all_prim_enabled() and core._is_fwd_prim_enabled()
        net = convert(net)
    xs = [rt.to_tensor(d) for d in data]
    xs[0].stop_gradient = False
    outs = []
    for _ in range(steps):
        out = net(*xs)
        loss = rt.mean(out, *loss_args)
        loss.backward()
        sgd.step()
        sgd.clear_grad()
        outs.append(out.numpy())
    return net, xs, outs, xs[0].grad.numpy(), [p.numpy() for p in net.parameters()]


def _same_training(make, data, convert=_cinn, **kw):
    _, _, dy_outs, dy_grad, dy_params = _train(make, data, None, **kw)
    try:
        net, xs, st_outs, st_grad, st_params = _train(make, data, convert, **kw)
    finally:
        core._set_prim_all_enabled(False)
        core._remove_skip_comp_ops("sqrt")
    for a, b in zip(dy_outs, st_outs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(st_grad, dy_grad)  # the input's gradient, summed over the steps
    for a, b in zip(dy_params, st_params):
        np.testing.assert_array_equal(b, a)
    return net, xs


def test_no_cinn_build_is_reported():
    assert rt.device.is_compiled_with_cinn() is False and core.is_compiled_with_cinn() is False
    assert rt.framework.core is core and core.is_run_with_cinn() is False


@pytest.mark.parametrize("seed", [0, 1])
def test_softmax_net_trains_as_eagerly_and_its_partial_program_holds_the_gradients(seed):
    data = [np.random.default_rng(seed).standard_normal((2, 4)).astype("float32")]
    net, xs = _same_training(PrimeNet, data)
    concrete, partial = net.forward.get_concrete_program(*xs)
    assert concrete.main_program is partial.forward_program is partial.program
    fwd_ops = [op.type for op in concrete.main_program.global_block().ops]
    assert "softmax" in fwd_ops and not any(t.endswith("_grad") for t in fwd_ops)
    train_ops = [op.type for op in net.forward.get_concrete_program(*xs)[1].train_program.block(0).ops]
    assert train_ops[:len(fwd_ops)] == fwd_ops and "softmax_grad" in train_ops
    # the pair reads as the ConcreteProgram too, and is the same object at every call
    pair = net.forward.get_concrete_program(*xs)
    assert pair is net.forward.get_concrete_program(*xs) and len(pair) == 2
    assert pair.main_program is concrete.main_program and pair[0] is concrete and pair[-1] is partial
    # the partial program layer runs the Program: the converted forward's result
    np.testing.assert_array_equal(partial([xs[0]])[0].numpy(), net(xs[0]).numpy())


def test_backend_cinn_is_the_cinn_pass():
    x = rt.randn([2, 4])
    outs = []
    for backend in ("CINN", None):
        rt.seed(2022)
        outs.append(dy2st.to_static(PrimeNet(), backend=backend)(x).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    with pytest.raises(ValueError, match="unknown backend"):
        dy2st.to_static(PrimeNet(), backend="cinn")


def test_a_tensor_made_trainable_inside_forward_trains_as_eagerly():
    data = [np.random.default_rng(3).standard_normal((2, 4)).astype("float32")]
    _same_training(FullLikeNet, data, steps=10)
    _same_training(FullLikeNet, data, convert=dy2st.to_static, steps=3)


@pytest.mark.parametrize("approximate", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu(approximate, dtype):
    for shape in ([2, 4], [8, 3, 4]):
        data = [np.random.default_rng(len(shape)).random(shape).astype(dtype)]
        _same_training(lambda: GeluNet(approximate), data, steps=3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mean_then_mean_of_a_0d_value_over_axis_minus_one(dtype):
    for shape in ([2, 4], [8, 3, 4]):
        data = [np.random.default_rng(7).random(shape).astype(dtype)]
        net, xs = _same_training(MeanNet, data, steps=3, loss_args=(-1, True))
        assert net(*xs).shape == [] and rt.mean(net(*xs), -1, True).shape == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_over_the_shape_tail_with_weight_and_bias_as_inputs(dtype):
    rng = np.random.default_rng(11)
    data = [rng.random([2, 64]).astype(dtype), rng.random([64]).astype(dtype), rng.random([64]).astype(dtype)]
    net, xs = _same_training(LayerNormNet, data, steps=1)
    ops = [op.type for op in net.forward.get_concrete_program(*xs)[1].train_program.block(0).ops]
    assert "layer_norm" in ops
