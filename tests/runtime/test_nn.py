"""rt.nn: Layer registration and state, layer behaviour in train/eval, conv/pool/norm gradients, static tracing."""
import numpy as np
import pytest

import runtime as rt
import runtime.nn.functional as F
from runtime import nn


def _t(a, grad=False):
    return rt.Tensor(np.asarray(a), stop_gradient=not grad)


def _numeric_grad(f, x, eps=1e-6):
    num = np.zeros_like(x)
    for k in range(x.size):
        orig = x.flat[k]
        x.flat[k] = orig + eps
        hi = f()
        x.flat[k] = orig - eps
        lo = f()
        x.flat[k] = orig
        num.flat[k] = (hi - lo) / (2 * eps)
    return num


def _check_layer_grads(layer, x_np, tol=1e-5):
    """Gradient of sum(layer(x) * w) w.r.t. the input and every parameter vs finite differences (float64)."""
    for p in layer.parameters():
        p._value = p._value.astype(np.float64)
    w = np.random.default_rng(3).standard_normal(layer(_t(x_np)).shape)
    x = _t(x_np.copy(), grad=True)
    rt.sum(layer(x) * rt.to_tensor(w)).backward()

    def f():
        return float(np.sum(layer(_t(x_np)).numpy() * w))
    np.testing.assert_allclose(x.grad.numpy(), _numeric_grad(f, x_np), rtol=1e-4, atol=tol)
    for name, p in layer.named_parameters():
        if p.stop_gradient:  # BatchNorm's running statistics: parameters that take no gradient
            assert p.grad is None, name
            continue
        num = _numeric_grad(f, p._value)
        np.testing.assert_allclose(p.grad.numpy(), num, rtol=1e-4, atol=tol, err_msg=name)


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1D(3)
        self.blocks = nn.LayerList([nn.Linear(3, 3), nn.Linear(3, 2)])
        self.scale = self.create_parameter([2], default_initializer=nn.initializer.Constant(2.0))
        self.register_buffer("steps", rt.to_tensor(np.zeros([1], np.float32)))
        self.register_buffer("scratch", rt.to_tensor(np.zeros([1], np.float32)), persistable=False)

    def forward(self, x):
        h = self.bn(self.fc(x))
        for blk in self.blocks:
            h = F.relu(blk(h))
        return h * self.scale


# -- Layer bookkeeping ---------------------------------------------------------------
def test_parameters_registered_with_structured_and_unique_names():
    net = _Net()
    names = [n for n, _ in net.named_parameters()]
    # BatchNorm's running statistics are parameters that take no gradient, as in Paddle
    assert names == ["scale", "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn._mean", "bn._variance",
                     "blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias"]
    assert len(net.parameters()) == 11
    assert net.fc.weight.shape == [4, 3] and net.fc.bias.shape == [3]
    unique = [p.name for p in net.parameters()]
    assert len(set(unique)) == len(unique)
    assert net.fc.weight.name.startswith("linear_") and net.fc.weight.name.endswith(".w_0")
    assert net.fc.bias.name.endswith(".b_0")
    assert [type(s).__name__ for s in net.sublayers()] == ["Linear", "BatchNorm1D", "LayerList", "Linear", "Linear"]
    assert [n for n, _ in net.named_sublayers()][:3] == ["fc", "bn", "blocks"]
    assert len(net.children()) == 3
    assert np.all(net.fc.bias.numpy() == 0) and np.all(net.scale.numpy() == 2)


def test_state_dict_includes_persistable_buffers_and_round_trips():
    rt.seed(1)
    a = _Net()
    sd = a.state_dict()
    assert "bn._mean" in sd and "bn._variance" in sd and "steps" in sd and "scratch" not in sd
    assert sd["fc.weight"] is a.fc.weight
    b = _Net()
    b.set_state_dict({k: v.numpy() * 1 for k, v in sd.items()})
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy())
    x = rt.randn([5, 4])
    a.eval(), b.eval()
    np.testing.assert_allclose(a(x).numpy(), b(x).numpy())


def test_set_state_dict_errors():
    net = _Net()
    sd = {k: v.numpy() for k, v in net.state_dict().items()}
    missing = dict(sd)
    del missing["fc.bias"]
    with pytest.raises(ValueError, match="missing keys \\['fc.bias'\\]"):
        net.set_state_dict(missing, strict=True)
    with pytest.raises(ValueError, match="unexpected keys \\['extra'\\]"):
        net.set_state_dict({**sd, "extra": np.zeros(1)}, strict=True)
    # Paddle's default: a missing key is skipped with a warning, an unexpected one ignored
    with pytest.warns(UserWarning, match="Skip loading for fc.bias"):
        assert net.set_state_dict(missing) == (["fc.bias"], [])
    assert net.set_state_dict({**sd, "extra": np.zeros(1)}) == ([], ["extra"])
    bad = dict(sd)
    bad["fc.weight"] = np.zeros([3, 4], np.float32)
    with pytest.raises(ValueError, match="fc.weight.*shape \\[3, 4\\].*\\[4, 3\\]"):
        net.set_state_dict(bad)


def test_setattr_and_param_attr():
    lin = nn.Linear(2, 3, weight_attr=nn.initializer.Constant(0.5), bias_attr=False)
    assert lin.bias is None and np.all(lin.weight.numpy() == 0.5)
    assert [n for n, _ in lin.named_parameters()] == ["weight"]
    lin2 = nn.Linear(2, 2, weight_attr=rt.ParamAttr(name="my_w", trainable=False))
    assert lin2.weight.name == "my_w" and lin2.weight.stop_gradient
    with pytest.raises(TypeError):
        lin.weight = 3


def test_train_eval_flags_propagate():
    net = _Net()
    assert net.training and net.bn.training
    net.eval()
    assert not net.training and not net.fc.training and not net.blocks[1].training
    net.train()
    assert net.blocks[0].training


# -- train/eval behaviour -------------------------------------------------------------
def test_dropout_train_and_eval():
    rt.seed(0)
    drop = nn.Dropout(p=0.5)
    x = rt.ones([200, 50])
    y = drop(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6  # upscale_in_train keeps the expectation
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    xg = rt.Tensor(np.ones([4, 4], np.float32), stop_gradient=False)
    drop.train()
    out = drop(xg)
    out.backward(np.ones([4, 4], np.float32))
    np.testing.assert_array_equal(xg.grad.numpy(), out.numpy())
    assert F.dropout(x, p=0.0) is x and F.dropout(x, 0.5, training=False) is x
    with pytest.raises(ValueError):
        nn.Dropout(p=1.5)


def test_batchnorm_uses_batch_stats_in_train_and_running_stats_in_eval():
    bn = nn.BatchNorm2D(3)
    rng = np.random.default_rng(0)
    x_np = (rng.standard_normal((8, 3, 4, 4)) * 3 + 5).astype(np.float32)
    y = bn(rt.to_tensor(x_np)).numpy()
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-4)
    np.testing.assert_allclose(y.std(axis=(0, 2, 3)), 1, atol=1e-3)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * x_np.mean(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.9 + 0.1 * x_np.var(axis=(0, 2, 3)), rtol=1e-5)
    bn.eval()
    mean, var = bn._mean.numpy().copy(), bn._variance.numpy().copy()
    y2 = bn(rt.to_tensor(x_np)).numpy()
    ref = (x_np - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y2, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn._mean.numpy(), mean)  # eval never updates the running stats
    with pytest.raises(ValueError, match="rank"):
        bn(rt.ones([2, 3]))


def test_layernorm_and_embedding():
    ln = nn.LayerNorm([2, 3])
    x = np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32)
    y = ln(rt.to_tensor(x)).numpy()
    ref = (x - x.mean(axis=(1, 2), keepdims=True)) / np.sqrt(x.var(axis=(1, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    emb = nn.Embedding(5, 3, padding_idx=0)
    out = emb(rt.to_tensor([[0, 2], [4, 0]]))
    assert out.shape == [2, 2, 3] and np.all(out.numpy()[0, 0] == 0)
    rt.sum(out).backward()
    g = emb.weight.grad.numpy()
    np.testing.assert_array_equal(g[[0, 1, 3]], 0)
    np.testing.assert_array_equal(g[[2, 4]], 1)
    with pytest.raises(ValueError, match="out of range"):
        emb(rt.to_tensor([7]))


# -- shapes and gradients -------------------------------------------------------------
@pytest.mark.parametrize("kw,shape", [
    (dict(kernel_size=3), [2, 4, 5, 6]),
    (dict(kernel_size=3, padding=1), [2, 4, 7, 8]),
    (dict(kernel_size=[3, 2], stride=2, padding=[1, 0]), [2, 4, 4, 4]),
    (dict(kernel_size=3, padding="SAME", stride=2), [2, 4, 4, 4]),
    (dict(kernel_size=2, dilation=2, groups=2), [2, 4, 5, 6]),
])
def test_conv2d_shapes(kw, shape):
    conv = nn.Conv2D(2, 4, **kw)
    assert conv(rt.ones([2, 2, 7, 8])).shape == shape


def test_conv2d_matches_direct_loop_and_gradients():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 2, 5, 5))
    conv = nn.Conv2D(2, 3, 3, stride=2, padding=1)
    w = conv.weight.numpy().astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            ref[:, :, i, j] = np.einsum("nchw,ochw->no", xp[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3], w)
    np.testing.assert_allclose(conv(_t(x.astype(np.float32))).numpy(), ref, rtol=1e-4, atol=1e-5)
    _check_layer_grads(nn.Conv2D(2, 4, 3, padding=1, groups=2), x)


@pytest.mark.parametrize("layer,shape", [
    (lambda: nn.MaxPool2D(2), [2, 3, 3, 3]),
    (lambda: nn.MaxPool2D(3, stride=2, padding=1), [2, 3, 4, 4]),
    (lambda: nn.AvgPool2D(2, stride=1), [2, 3, 6, 6]),
    (lambda: nn.AvgPool2D(3, stride=2, padding=1), [2, 3, 4, 4]),
    (lambda: nn.MaxPool2D(2, ceil_mode=True), [2, 3, 4, 4]),
])
def test_pool_shapes_and_gradients(layer, shape):
    rng = np.random.default_rng(0)
    x = rng.permutation(2 * 3 * 7 * 7).reshape(2, 3, 7, 7) * 0.1  # distinct values: no max ties
    lay = layer()
    assert lay(_t(x)).shape == shape
    _check_layer_grads(lay, x)


def test_norm_and_linear_layer_gradients():
    rng = np.random.default_rng(2)
    _check_layer_grads(nn.Linear(3, 2), rng.standard_normal((4, 3)))
    _check_layer_grads(nn.BatchNorm1D(3), rng.standard_normal((5, 3)))
    _check_layer_grads(nn.LayerNorm(3), rng.standard_normal((2, 3)))


class _CellOut(nn.Layer):
    """Sums a recurrent cell's outputs into one tensor, running two steps so the state path is used."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x):
        h, state = self.cell(x)
        h, state = self.cell(x, state)
        return h + state[1] if isinstance(state, tuple) else h


@pytest.mark.parametrize("cell", [nn.LSTMCell, nn.GRUCell])
def test_recurrent_cell_gradients(cell):
    lay = _CellOut(cell(3, 2))
    assert lay(rt.ones([2, 3])).shape == [2, 2]
    _check_layer_grads(lay, np.random.default_rng(4).standard_normal((2, 3)))


# -- functional and losses ----------------------------------------------------------------
def test_cross_entropy_label_forms_and_errors():
    logits = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    lab = np.array([1, 0, 4, 2])
    lp = logits - logits.max(1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
    ref = -lp[np.arange(4), lab]
    x = rt.to_tensor(logits)
    np.testing.assert_allclose(float(F.cross_entropy(x, rt.to_tensor(lab))), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(float(F.cross_entropy(x, rt.to_tensor(lab[:, None]))), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(float(F.cross_entropy(x, rt.to_tensor(lab), reduction="sum")), ref.sum(), rtol=1e-5)
    none = F.cross_entropy(x, rt.to_tensor(lab[:, None]), reduction="none")
    assert none.shape == [4, 1]
    ign = F.cross_entropy(x, rt.to_tensor(lab), ignore_index=4)
    np.testing.assert_allclose(float(ign), ref[[0, 1, 3]].mean(), rtol=1e-5)
    soft = np.eye(5, dtype=np.float32)[lab]
    np.testing.assert_allclose(float(nn.CrossEntropyLoss(soft_label=True)(x, rt.to_tensor(soft))), ref.mean(),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="label value 5 is out of range \\[0, 5\\)"):
        F.cross_entropy(x, rt.to_tensor([1, 0, 5, 2]))
    with pytest.raises(ValueError, match="label shape \\[3\\] does not fit logits shape \\[4, 5\\]"):
        F.cross_entropy(x, rt.to_tensor([1, 0, 2]))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, rt.to_tensor(lab), reduction="avg")


def test_functional_misc():
    x = rt.to_tensor([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(F.softmax(x).numpy().sum(), 1, rtol=1e-6)
    np.testing.assert_allclose(np.exp(F.log_softmax(x).numpy()), F.softmax(x).numpy(), rtol=1e-6)
    assert F.one_hot(rt.to_tensor([0, 2]), 3).numpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    np.testing.assert_allclose(float(nn.MSELoss()(x, rt.zeros([1, 3]))), 14 / 3, rtol=1e-6)
    assert nn.Flatten()(rt.ones([2, 3, 4])).shape == [2, 12]
    assert nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1), nn.Sigmoid())(x).shape == [1, 1]
    assert float(F.gelu(rt.to_tensor([0.0]))) == 0.0


# -- static tracing of layers ----------------------------------------------------------------
def test_layers_trace_into_a_program_and_update_running_stats():
    rt.seed(0)
    fc, bn, drop = nn.Linear(4, 3), nn.BatchNorm1D(3), nn.Dropout(0.5)
    main = rt.static.Program()
    with rt.static.program_guard(main):
        rt.enable_static()
        try:
            x = rt.static.data("x", [None, 4], "float32")
            y = drop(bn(fc(x)))
        finally:
            rt.disable_static()
    types = [op.type for op in main.global_block().ops]
    assert "batch_norm" in types and "dropout" in types and types.count("assign") == 2
    xs = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    out1, = rt.static.Executor().run(main, feed={"x": xs}, fetch_list=[y])
    out2, = rt.static.Executor().run(main, feed={"x": xs}, fetch_list=[y])
    assert out1.shape == (6, 3)
    assert not np.array_equal(out1 == 0, out2 == 0)  # the dropout mask is drawn at run time
    h = xs @ fc.weight.numpy() + fc.bias.numpy()
    np.testing.assert_allclose(bn._mean.numpy(), 0.19 * h.mean(0), rtol=1e-4, atol=1e-6)
