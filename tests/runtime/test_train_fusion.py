"""A compiled training step's update overwriting the gradients only it holds (``consume_grads``), and
the cross entropy kernels' one log-softmax: the same bits as eager, with the feature on and off."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.ops import nn_loss
from runtime.static import passes
from step_helpers import MLP, train_step
from runtime.static.passes import owned_grads
from runtime.static.passes.owned_grads import owned_gradients
from runtime.tensor import Parameter

O = rt.optimizer
OPTIMIZERS = {
    "sgd": lambda ps: O.SGD(0.05, parameters=ps),
    "momentum": lambda ps: O.Momentum(0.05, parameters=ps),
    "nesterov": lambda ps: O.Momentum(0.05, parameters=ps, use_nesterov=True),
    "adam": lambda ps: O.Adam(0.01, parameters=ps),
    "adamw": lambda ps: O.AdamW(0.01, parameters=ps),
}


_RNG = np.random.default_rng(3)
_BATCHES = [(_RNG.normal(size=(40, 6)).astype("float32"), _RNG.integers(0, 5, 40)) for _ in range(4)]


def _train(make_opt, convert):
    """Per step the loss, then the parameters after the last step (SGD/Momentum/Adam/AdamW)."""
    rt.seed(0)
    net = MLP(6, 12, 5)
    opt = make_opt(net.parameters())
    fn = train_step(net, opt, convert)
    out = [fn(rt.to_tensor(x), rt.to_tensor(y)).numpy().copy() for x, y in _BATCHES]
    return out + [p.numpy().copy() for p in net.parameters()], fn


def _same_bits(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_compiled_step_equals_eager_with_consume_on_and_off(name):
    eager, _ = _train(OPTIMIZERS[name], False)
    for flag in (True, False):
        with passes.features(consume_grads=flag):
            static, fn = _train(OPTIMIZERS[name], True)
        _same_bits(eager, static)


def _train_update(fn):
    block = fn.concrete_program.main_program.global_block()
    return block, next(op for op in block.ops if op.type == "train_update")


def test_every_gradient_of_the_mlp_is_consumable_and_the_switch_turns_it_off():
    _, fn = _train(OPTIMIZERS["sgd"], True)
    block, op = _train_update(fn)
    assert owned_gradients(block, op) == frozenset(range(4))  # two matmuls, two bias sums
    with passes.features(consume_grads=False):
        assert owned_gradients(block, op) == frozenset()


def _shared_and_constant(convert, make_opt):
    """``a + b``: both take one upstream gradient; ``ones @ w``: w's gradient is a matmul of constants
    and of the seed expanded to a shape of this run (not folded: made afresh at every run)."""
    a = Parameter(np.full(3, 0.5, "float32"), name="tf_shared_a")
    b = Parameter(np.full(3, -0.25, "float32"), name="tf_shared_b")
    w = Parameter(np.full((3, 2), 0.1, "float32"), name="tf_const_w")
    opt = make_opt([a, b, w])

    def step(x):
        loss = ((a + b) * x).sum() + (rt.ones([4, 3]) @ w).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fn = dy2st.to_static(step) if convert else step
    losses = [fn(rt.to_tensor(np.arange(3, dtype="float32") + i)).numpy().copy() for i in range(3)]
    return losses + [a.numpy().copy(), b.numpy().copy(), w.numpy().copy()], fn


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_a_shared_gradient_is_never_overwritten(name):
    eager, _ = _shared_and_constant(False, OPTIMIZERS[name])
    static, fn = _shared_and_constant(True, OPTIMIZERS[name])
    _same_bits(eager, static)  # three steps: an overwritten shared (or reused) array would show
    block, op = _train_update(fn)
    assert owned_gradients(block, op) == frozenset({2})  # a's and b's are one array; w's is fresh
    const = owned_grads._constant(block, block.ops)
    assert {"fill_constant_0", "fill_constant_1", "unsqueeze_0"} <= const  # what the compiler folds
    assert not const & {"matmul_0", "matmul_0@GRAD", "tf_const_w@GRAD", "add_0@GRAD"}


def _ce_reference(x, y):
    s = x - x.max(axis=1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(y)), y]


@pytest.mark.parametrize("shape", [(64, 10), (5, 40), (40, 3), (0, 4)])
def test_cross_entropy_one_log_softmax_matches_recomputing(shape):
    x = np.random.default_rng(0).normal(size=shape).astype("float32") * 5
    y = np.random.default_rng(1).integers(0, shape[1], shape[0])
    g = np.asarray(1.0, "float32")
    loss = nn_loss._ce_kernel(x, y, reduction="none")
    np.testing.assert_allclose(loss, _ce_reference(x, y), rtol=1e-5, atol=1e-6)
    mean = nn_loss._ce_kernel(x, y)
    reused = nn_loss._ce_grad_kernel(x, y, g)  # the forward's softmax
    recomputed = nn_loss._ce_grad_kernel(x, y, g)  # used once: computed again
    assert reused.tobytes() == recomputed.tobytes() and mean.dtype == np.float32
    p = np.exp(x - x.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1
    np.testing.assert_allclose(reused, p / max(len(y), 1), rtol=1e-5, atol=1e-6)


def test_cross_entropy_row_max_keeps_nan():
    x = np.zeros((40, 4), "float32")
    x[3, 2] = np.nan
    loss = nn_loss._ce_kernel(x, np.zeros(40, "int64"), reduction="none")
    assert np.isnan(loss[3]) and not np.isnan(np.delete(loss, 3)).any()
