"""Second derivatives through the ops whose gradient is a gradient op (relu_grad, gelu_grad, conv2d_grad_input...):
``rt.grad(..., create_graph=True)`` differentiated again, eagerly against central differences of the first
derivative (float64), and in converted code (gradient penalties trained with an optimizer) against eager.
The values were also checked against Paddle 3.3 where it has these second derivatives (relu, sqrt, rsqrt,
clip, tile, mse_loss, avg_pool2d, conv2d, batch_norm); it has none for gelu, softmax, log_softmax,
layer_norm, cross_entropy, max_pool2d, diagonal, embedding and logcumsumexp."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from tests.compat.helpers import pair

_R = np.random.default_rng(0)


def _t(*shape):
    return _R.standard_normal(shape)


def _first(fn, xs, w):
    ts = [rt.to_tensor(x, stop_gradient=False) for x in xs]
    return ts, rt.grad((fn(*ts) * rt.to_tensor(w)).sum(), ts, create_graph=True, allow_unused=True)


def _check_second(fn, *xs, eps=1e-6):
    """d/dx of <v, grad(<w, fn(x)>)>, against central differences of that first derivative."""
    w = _R.standard_normal(fn(*[rt.to_tensor(x) for x in xs]).shape)
    vs = [_R.standard_normal(x.shape) for x in xs]

    def dot(xs_):
        return sum(float((g.numpy() * v).sum()) for g, v in zip(_first(fn, xs_, w)[1], vs) if g is not None)
    ts, gs = _first(fn, list(xs), w)
    got = rt.grad(sum((g * rt.to_tensor(v)).sum() for g, v in zip(gs, vs) if g is not None), ts, allow_unused=True)
    for k, x in enumerate(xs):
        fd = np.zeros_like(x)
        for i in range(x.size):
            e = np.zeros(x.size)
            e[i] = eps
            up, down = list(xs), list(xs)
            up[k], down[k] = x + e.reshape(x.shape), x - e.reshape(x.shape)
            fd.flat[i] = (dot(up) - dot(down)) / (2 * eps)
        h = np.zeros_like(x) if got[k] is None else got[k].numpy()
        np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(fd).max()), err_msg=f"input {k}")


_IDS = rt.to_tensor(np.array([[0, 2], [3, 2]]))
_LABEL = rt.to_tensor(np.array([1, -100, 0]))
_SOFT = rt.to_tensor(np.abs(_t(3, 4)))
_ZERO3, _ONE3 = rt.to_tensor(np.zeros(3)), rt.to_tensor(np.ones(3))
# squared outputs, so the first derivative's upstream gradient depends on x too (the OutGrad terms)
CASES = {
    "relu": (lambda a: F.relu(a) * a, _t(3, 4)),
    "gelu": (lambda a: F.gelu(a) ** 2, _t(3, 4)),
    "gelu_tanh": (lambda a: F.gelu(a, approximate=True) ** 2, _t(3, 4)),
    "sqrt_rsqrt": (lambda a: rt.sqrt(a * a + 0.5) * rt.rsqrt(a * a + 0.3) ** 2, _t(3, 4)),
    "clip": (lambda a: rt.clip(a, -0.5, 0.5) * a, _t(3, 4)),
    "softmax": (lambda a: F.softmax(a, axis=0) ** 2, _t(3, 4)),
    "log_softmax": (lambda a: F.log_softmax(a) ** 2, _t(3, 4)),
    "layer_norm": (lambda a, s, b: F.layer_norm(a, [2, 3], s, b) ** 2, _t(2, 2, 3), _t(2, 3), _t(2, 3)),
    "batch_norm": (lambda a, s, b: F.batch_norm(a, _ZERO3, _ONE3, s, b, training=True) ** 2, _t(4, 3, 2), _t(3), _t(3)),
    "batch_norm_eval": (lambda a, s, b: F.batch_norm(a, _ZERO3 + 0.2, _ONE3 * 1.5, s, b) ** 2, _t(4, 3, 2), _t(3), _t(3)),
    "mse_loss": (lambda a, b: F.mse_loss(a * a, b) ** 2, _t(3, 4), _t(3, 4)),
    "mse_loss_none": (lambda a, b: F.mse_loss(a * a, b, reduction="none") ** 2, _t(3, 4), _t(3, 4)),
    "cross_entropy": (lambda a: F.cross_entropy(a, _LABEL) ** 2, _t(3, 4)),
    "cross_entropy_none": (lambda a: F.cross_entropy(a, _LABEL, reduction="none") ** 2, _t(3, 4)),
    "cross_entropy_soft": (lambda a: F.cross_entropy(a, _SOFT, soft_label=True, reduction="sum") ** 2, _t(3, 4)),
    "cross_entropy_no_softmax": (lambda a: F.cross_entropy(a * a + 0.1, _LABEL, use_softmax=False) ** 2, _t(3, 4)),
    "logcumsumexp": (lambda a: rt.logcumsumexp(a * 30, axis=0) ** 2 / 100, _t(3, 2)),
    "tile_diagonal": (lambda a: rt.diagonal(rt.tile(a, [2, 1])) ** 2, _t(2, 3)),
    "embedding": (lambda w: F.embedding(_IDS, w, padding_idx=3) ** 2, _t(4, 3)),
    "avg_pool2d": (lambda a: F.avg_pool2d(a, 3, 2, padding=1, exclusive=False) ** 2, _t(1, 1, 5, 5)),
    "max_pool2d": (lambda a: F.max_pool2d(a, 2, 2, ceil_mode=True) ** 2, _t(1, 1, 5, 5)),
    "max_pool2d_mask": (lambda a: F.max_pool2d(a, 2, 2, return_mask=True)[0] ** 2, _t(1, 1, 4, 4)),
    "conv2d": (lambda a, w: F.conv2d(a, w, stride=2, padding=1, groups=2) ** 2, _t(1, 4, 3, 3), _t(2, 2, 2, 2)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_derivative_matches_finite_differences(name):
    fn, *xs = CASES[name]
    _check_second(fn, *xs)


def test_dropout_second_derivative_uses_the_same_mask():
    x = rt.to_tensor(_t(4, 5), stop_gradient=False)
    rt.seed(3)
    y = F.dropout(x, 0.5)
    kept = (y.numpy() != 0) * 2.0
    g, = rt.grad((y * y * x).sum(), x, create_graph=True)  # g = 3 m^2 x^2
    gg, = rt.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * kept ** 2 * x.numpy(), rtol=1e-12)


@pytest.mark.parametrize("norm", ["layer_norm", "batch_norm"])
def test_third_derivative_through_the_normalisation_statistics(norm):
    """The second-derivative rule reads the forward's Mean/InvStd outputs: a third derivative reaches them."""
    fn, *xs = CASES[norm]
    w, v = _R.standard_normal(xs[0].shape), _R.standard_normal(xs[0].shape)

    def second(x0):
        x = rt.to_tensor(x0, stop_gradient=False)
        g, = rt.grad((fn(x, *map(rt.to_tensor, xs[1:])) * rt.to_tensor(w)).sum(), x, create_graph=True)
        gg, = rt.grad((g * rt.to_tensor(v)).sum(), x, create_graph=True)
        return x, (gg * gg).sum()
    x, s = second(xs[0])
    got, = rt.grad(s, x)
    eps, fd = 1e-6, np.zeros(xs[0].size)
    for i in range(fd.size):
        e = np.zeros(fd.size)
        e[i] = eps
        e = e.reshape(xs[0].shape)
        fd[i] = (float(second(xs[0] + e)[1]) - float(second(xs[0] - e)[1])) / (2 * eps)
    np.testing.assert_allclose(got.numpy().ravel(), fd, rtol=1e-5, atol=1e-6 * np.abs(fd).max())


@pytest.mark.parametrize("name", ["relu", "gelu", "sqrt_rsqrt", "softmax", "layer_norm", "batch_norm",
                                  "cross_entropy_none", "max_pool2d", "conv2d"])
def test_converted_gradient_penalty_equals_eager(name):
    fn, *xs = CASES[name]

    def penalty(x, *rest):
        g, = rt.grad(fn(x, *rest).sum(), x, create_graph=True)
        return (g * g).sum()
    runs = []
    for f in (penalty, dy2st.to_static(penalty)):
        ts = [rt.to_tensor(x.astype("float32"), stop_gradient=False) for x in xs]
        loss = f(*ts)
        loss.backward()
        runs.append([loss.numpy()] + [t.grad.numpy() for t in ts])
    for e, s in zip(*runs):
        np.testing.assert_array_equal(s, e)


class _Critic(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = rt.nn.Conv2D(1, 4, 3, stride=2, padding=1)
        self.act = rt.nn.LeakyReLU(0.2)
        self.fc = rt.nn.Linear(4 * 4 * 4, 1)

    def forward(self, x):
        return self.fc(rt.flatten(self.act(self.conv(x)), 1))


class _MLP(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1, self.norm, self.l2, self.l3 = (rt.nn.Linear(6, 8), rt.nn.LayerNorm(8), rt.nn.Linear(8, 8),
                                                rt.nn.Linear(8, 1))

    def forward(self, x):
        return self.l3(F.gelu(self.l2(F.relu(self.norm(self.l1(x))))))


def _wgan_gp(critic, x, real, fake):
    """WGAN-GP's critic loss: Wasserstein estimate plus 10 (|grad_x critic(x)| - 1)^2 at the interpolate x."""
    out = critic(x)
    g, = rt.grad(out.sum(), x, create_graph=True)
    norm = rt.sqrt((g * g).reshape([g.shape[0], -1]).sum(axis=1) + 1e-12)
    return critic(fake).mean() - critic(real).mean() + 10.0 * ((norm - 1.0) ** 2).mean()


def _train(model, data, whole_step):
    """Three critic steps with Adam: the loss converted (backward and step eager), or the whole step."""
    opt = rt.optimizer.Adam(0.01, parameters=model.parameters())

    def step(alpha, real, fake):
        x = alpha * real + (1 - alpha) * fake
        x.stop_gradient = False  # the interpolate needs a gradient, as in Paddle's WGAN-GP examples
        loss = loss_fn(model, x, real, fake)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    loss_fn = _wgan_gp if whole_step is None or whole_step else dy2st.to_static(_wgan_gp)
    fn = dy2st.to_static(step) if whole_step else step
    return [float(fn(*map(rt.to_tensor, batch))) for batch in data]


@pytest.mark.parametrize("whole_step", [False, True])
@pytest.mark.parametrize("cls, shape", [(_Critic, (3, 1, 8, 8)), (_MLP, (5, 6))])
def test_gradient_penalty_training_converted_equals_eager(cls, shape, whole_step):
    eager, static = pair(cls)
    data = [[_R.uniform(size=(shape[0],) + (1,) * (len(shape) - 1)).astype("float32")] +
            [_R.standard_normal(shape).astype("float32") for _ in range(2)] for _ in range(3)]
    assert _train(static, data, whole_step) == _train(eager, data, None)
    for (k, want), got in zip(eager.state_dict().items(), static.state_dict().values()):
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=k)


def _array_penalty(x, i, j):
    arr = rt.tensor.create_array("float32")
    arr = rt.tensor.array_write(x * x, i, arr)
    arr = rt.tensor.array_write(rt.tanh(x), j, arr)  # appends
    arr = rt.tensor.array_write(rt.sin(x), i, arr)  # overwrites
    y = rt.tensor.array_read(arr, j) * rt.tensor.array_read(arr, i)
    g, = rt.grad((y * y).sum(), x, create_graph=True)
    return (g * g).sum()


def test_converted_tensor_array_gradient_penalty_equals_eager():
    """At tensor indices a converted array is array_write/array_read ops, whose gradient ops have rules too."""
    i, j = rt.to_tensor(np.array([0])), rt.to_tensor(np.array([1]))
    runs = []
    for f in (_array_penalty, dy2st.to_static(_array_penalty)):
        x = rt.to_tensor(np.array([0.3, -0.7, 1.1], "float32"), stop_gradient=False)
        loss = f(x, i, j)
        loss.backward()
        runs.append((loss.numpy(), x.grad.numpy()))
    ops = {op.type for op in dy2st.to_static(_array_penalty).get_concrete_program(
        rt.to_tensor(np.zeros(3, "float32"), stop_gradient=False), i, j).main_program.global_block().ops}
    assert {"array_read_grad", "array_write_grad"} <= ops
    for e, s in zip(*runs):
        np.testing.assert_allclose(s, e, rtol=1e-6)


def _loop_penalty(x, n, extra):
    y, i = x, rt.zeros([1], "int64")
    while i < n:
        y = rt.tanh(y) * x
        i = i + 1
    g, = rt.grad(y.sum(), x, create_graph=True)
    return (g * g).sum() + extra * (x * x).sum()


@pytest.mark.parametrize("extra", [0.0, 1.0])
def test_a_gradient_op_without_a_rule_refuses_in_converted_code(extra):
    """while_grad has no gradient: differentiating through it raises, whether the output reaches x only
    through it (the trace check) or also directly (the backward builder), instead of dropping its terms."""
    x = rt.to_tensor(np.array([0.3, -0.5], "float32"), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="gradient op 'while_grad', which has no gradient"):
        dy2st.to_static(_loop_penalty)(x, rt.to_tensor(np.array([2])), extra).backward()
