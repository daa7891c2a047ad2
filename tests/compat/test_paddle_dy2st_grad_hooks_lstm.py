"""Scenarios of Paddle's test_tensor_hook, test_no_gradient, test_params_no_grad, test_high_order_net and
test_lstm, rewritten: `register_hook` on inputs, intermediates, a reassigned name, twice on one tensor,
inside the branches of a tensor `if`, on a parameter in `forward` and in `__init__`; a converted function
called from eager code with a `stop_gradient` temporary; an embedding output cut from the gradient
and a `DataParallel` wrapper; second derivatives through `paddle.grad(create_graph=True)` (also under a
tensor `if`); and a 2-layer bidirectional LSTM converted, saved in eval mode after a training step,
loaded, and switched back to train mode. Values and gradients equal eager."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn
from tests.compat.helpers import arr


def _double(g):
    return 2 * g


def hook_for_different_tensors(x):
    y = x + 4
    f = y + x
    z = f**2
    y.register_hook(_double)
    f.register_hook(_double)
    x.register_hook(_double)
    return z


def hook_in_sub_block(x):
    def hook1(grad):
        return 2 * grad

    def hook2(grad):
        return 3 * grad

    if x > 1:
        y = x + 4
        z = y**2
        y.register_hook(hook1)
    else:
        y = x - 4
        z = y**3
        y.register_hook(hook2)
    return z


def hook_for_reassignment(x):
    y = x + 4
    x = y * 5
    z = x**2
    x.register_hook(_double)
    return z


def hook_registered_twice(x):
    y = x + 4
    z = y**2
    x.register_hook(_double)
    x.register_hook(_double)
    return z


@pytest.mark.parametrize("fn", [hook_for_different_tensors, hook_in_sub_block, hook_for_reassignment,
                                hook_registered_twice])
@pytest.mark.parametrize("value", [2.0, 0.5])
def test_tensor_hooks(fn, value):
    sf = dy2st.to_static(fn)
    for _ in range(2):  # the second call runs the cached Program
        x, xs = rt.to_tensor([value], stop_gradient=False), rt.to_tensor([value], stop_gradient=False)
        fn(x).backward()
        sf(xs).backward()
        np.testing.assert_allclose(xs.grad.numpy(), x.grad.numpy())


class HookInForward(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(12, 3)

    def forward(self, x):
        self._linear.weight.register_hook(_double)
        return self._linear(x)


class HookInInit(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(12, 3)
        self._linear.parameters()[0].register_hook(_double)

    def forward(self, x):
        return self._linear(x)


@pytest.mark.parametrize("cls", [HookInForward, HookInInit])
def test_parameter_hooks(cls):
    rt.seed(0)
    eager = cls()
    rt.seed(0)
    static = dy2st.to_static(cls())
    for seed in (0, 1):
        eager(rt.to_tensor(arr(12, seed=seed))).sum().backward()
        static(rt.to_tensor(arr(12, seed=seed))).sum().backward()
        np.testing.assert_allclose(static._linear.weight.grad.numpy(), eager._linear.weight.grad.numpy())


def _static_func(x, no_grad_x):
    tx = 2 * no_grad_x
    tx.stop_gradient = True
    return 2 * x


def test_no_gradient_from_a_stop_gradient_temporary():
    x = rt.randn([10, 3])
    index = rt.arange(0, 10, 1, dtype="int32")
    x.stop_gradient = False
    out = dy2st.to_static(_static_func)(x, rt.gather(x, index))
    out.mean().backward()
    np.testing.assert_array_equal(x.grad.numpy(), rt.full([10, 3], 2.0 / 30).numpy())
    assert index.grad is None


class TwoEmbeddings(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb1 = nn.Embedding(100, 16)
        self.emb2 = nn.Embedding(100, 16)

    def forward(self, ids):
        feat1 = self.emb1(ids)
        feat1.stop_gradient = True  # this embedding gets no gradient
        feat2 = self.emb2(ids)
        return rt.mean(feat1 + feat2)


def test_params_without_grad_under_data_parallel():
    rt.seed(5)
    eager = TwoEmbeddings()
    static = dy2st.to_static(TwoEmbeddings())
    static.set_state_dict(eager.state_dict())
    runs = []
    for model in (eager, static):
        sgd = rt.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        dp_net = rt.DataParallel(model)
        rng = np.random.default_rng(0)
        losses = []
        for _ in range(3):
            loss = dp_net(rt.to_tensor(rng.integers(0, 100, [4, 10])))
            loss.backward()
            assert model.emb1.weight.grad is None
            sgd.step()
            sgd.clear_grad()
            losses.append(float(loss))
        runs.append(losses)
    assert runs[1] == runs[0]
    np.testing.assert_array_equal(static.emb2.weight.numpy(), eager.emb2.weight.numpy())


class HighOrderNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.bilinear = nn.Bilinear(in1_features=5, in2_features=4, out_features=10)

    def forward(self, x, y):
        y = self.bilinear(x, y)
        z = rt.pow(y, 2)
        x_grad = rt.grad(z, x, create_graph=True)[0]
        x_grad_grad = rt.grad(x_grad, x, create_graph=True)[0]
        return x_grad_grad.mean()


class HighOrderControlFlowNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.eps = 1e-5

    def forward(self, x):
        if x.numel() > 0:
            variance, mean = (rt.var(x, axis=-1, unbiased=False, keepdim=True), rt.mean(x, axis=-1, keepdim=True))
            y = (x - mean) / rt.sqrt(variance + self.eps)
        else:
            y = x
        x_grad = rt.grad(y, x, create_graph=True)[0]
        return x_grad.mean()


@pytest.mark.parametrize("cls, shapes", [(HighOrderNet, [(5, 5), (5, 4)]), (HighOrderControlFlowNet, [(5, 5)])])
def test_high_order_grads(cls, shapes):
    rt.seed(1)
    net = cls()
    ins = [arr(*s, seed=i) for i, s in enumerate(shapes)]
    e_in = [rt.to_tensor(a, stop_gradient=False) for a in ins]
    s_in = [rt.to_tensor(a, stop_gradient=False) for a in ins]
    want, got = net(*e_in), dy2st.to_static(net)(*s_in)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-7)
    want.backward()
    got.backward()
    for a, b in zip(e_in, s_in):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)


class LSTMLayer(nn.Layer):
    def __init__(self, in_channels, hidden_size):
        super().__init__()
        self.cell = nn.LSTM(in_channels, hidden_size, direction="bidirectional", num_layers=2)

    def forward(self, x):
        x, _ = self.cell(x)
        return x


class LSTMNet(nn.Layer):
    def __init__(self, in_channels, hidden_size):
        super().__init__()
        self.lstm = LSTMLayer(in_channels, hidden_size)

    def forward(self, x):
        return self.lstm(x)


def test_lstm_saved_in_eval_mode_after_a_training_step(tmp_path):
    rt.seed(1001)
    net = LSTMNet(6, 2)
    eager = LSTMNet(6, 2)
    x = rt.randn((2, 4, 6))
    x.stop_gradient = False
    loss = rt.mean(net(x))
    sgd = rt.optimizer.SGD(learning_rate=0.001, parameters=net.parameters())
    loss.backward()
    sgd.step()
    eager.set_state_dict(net.state_dict())
    net.eval()
    x = rt.randn((2, 4, 6))
    net = dy2st.to_static(net, input_spec=[rt.static.InputSpec(shape=[-1, 4, 6])])
    dy2st.save(net, str(tmp_path / "simple_lstm"))
    out = net(x)
    np.testing.assert_allclose(out.numpy(), eager(x).numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dy2st.load(str(tmp_path / "simple_lstm"))(x).numpy(), out.numpy(), rtol=1e-6)
    net.train()  # no dropout: train mode gives the same values
    np.testing.assert_allclose(net(x).numpy(), out.numpy(), rtol=1e-6)
