"""The StaticFunction contract (API.md "dy2st: the converter", Paddle 2.x semantics).

Every test compares the converted function with the original run eagerly, on several
input values, and checks the Program really holds the graph ops (`cond`/`while`) and that
one signature builds one Program: a converter that silently ran eagerly fails here.
"""
import ast

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from tests.dy2st.static_function_helpers import branchy, op_types, rand, t


# -- the decorator ---------------------------------------------------------------------------

def test_decorator_without_arguments_one_program_for_all_values():
    sf = dy2st.to_static(branchy)
    assert isinstance(sf, dy2st.StaticFunction)
    for seed, n in [(0, 3), (1, 5), (2, 0), (3, 1)]:
        x = rand(2, 3, seed=seed) + (1.0 if seed % 2 else -1.0)
        got = sf(t(x), t(n, "int64"))
        want = branchy(t(x), t(n, "int64"))
        assert isinstance(got, rt.Tensor)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    assert len(sf.program_cache) == 1
    types = op_types(sf.concrete_program.main_program)
    assert "while" in types and "cond" in types


def test_decorator_with_arguments():
    @dy2st.to_static(input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    def f(x):
        if x.sum() > 0:
            y = x * 2.0
        else:
            y = -x
        return y

    for seed in range(4):
        x = rand(seed + 1, 3, seed=seed)
        np.testing.assert_allclose(f(t(x)).numpy(), np.where(x.sum() > 0, x * 2.0, -x), rtol=1e-6)
    assert len(f.program_cache) == 1  # None batch dim: every batch size shares one Program
    assert "cond" in op_types(f.concrete_program.main_program)


def test_decorator_empty_parentheses():
    @dy2st.to_static()
    def f(x):
        return x + 1.0

    np.testing.assert_allclose(f(t([1.0, 2.0])).numpy(), [2.0, 3.0])
    assert len(f.program_cache) == 1


class CondNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = h * 2.0
        else:
            h = h - 1.0
        return h


class DecoratedNet(CondNet):
    @dy2st.to_static
    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = h * 2.0
        else:
            h = h - 1.0
        return h


def _check_layer_matches_eager(static_layer, eager_layer):
    for seed in range(4):
        x = rand(5, 4, seed=seed) * (3.0 if seed % 2 else -3.0)
        np.testing.assert_allclose(static_layer(t(x)).numpy(), eager_layer(t(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_forward_decorated_in_class():
    rt.seed(1)
    net = DecoratedNet()
    eager = CondNet()
    eager.set_state_dict(net.state_dict())
    _check_layer_matches_eager(net, eager)
    assert isinstance(net.forward, dy2st.StaticFunction)
    assert len(net.forward.program_cache) == 1
    assert "cond" in op_types(net.forward.concrete_program.main_program)


def test_forward_decorated_in_class_binds_per_instance():
    rt.seed(1)
    a, b = DecoratedNet(), DecoratedNet()
    x = t(rand(2, 4))
    assert not np.allclose(a(x).numpy(), b(x).numpy())
    np.testing.assert_allclose(a(x).numpy(), CondNet.forward(a, x).numpy(), rtol=1e-5)
    np.testing.assert_allclose(b(x).numpy(), CondNet.forward(b, x).numpy(), rtol=1e-5)


def test_to_static_on_layer_instance_returns_the_layer():
    rt.seed(2)
    net = CondNet()
    eager = CondNet()
    eager.set_state_dict(net.state_dict())
    out = dy2st.to_static(net)
    assert out is net
    assert isinstance(net.forward, dy2st.StaticFunction)
    _check_layer_matches_eager(net, eager)
    assert len(net.forward.program_cache) == 1
    assert "cond" in op_types(net.forward.concrete_program.main_program)
    assert not isinstance(CondNet().forward, dy2st.StaticFunction)  # the class is untouched


# -- the cache key ---------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [(2, 3), (True, False), ("add", "sub"), (None, 1.5)])
def test_non_tensor_arguments_are_part_of_the_cache_key(a, b):
    def f(x, v):
        if v is None:
            k = 0.0
        elif isinstance(v, str):
            k = 1.0 if v == "add" else -1.0
        else:
            k = float(v)
        if x.mean() > 0:
            x = x + k
        return x

    sf = dy2st.to_static(f)
    for v in (a, b):
        for seed in range(3):
            x = rand(3, seed=seed)
            np.testing.assert_allclose(sf(t(x), v).numpy(), f(t(x), v).numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 2
    for cp in sf.program_cache.concrete_programs():
        assert "cond" in op_types(cp.main_program)


def test_keyword_tensor_and_value_arguments():
    def f(x, scale=1.0, y=None):
        if y is not None:
            x = x + y
        return x * scale

    sf = dy2st.to_static(f)
    x, y = t(rand(3)), t(rand(3, seed=1))
    np.testing.assert_allclose(sf(x, scale=2.0, y=y).numpy(), f(x, scale=2.0, y=y).numpy(), rtol=1e-6)
    np.testing.assert_allclose(sf(x).numpy(), x.numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 2


def test_new_shape_without_input_spec_builds_a_new_program():
    sf = dy2st.to_static(lambda x: x * 2.0)
    sf(t(rand(2, 3)))
    sf(t(rand(2, 3, seed=1)))
    assert len(sf.program_cache) == 1
    sf(t(rand(4, 3)))
    assert len(sf.program_cache) == 2


# -- get_concrete_program, code, rollback -----------------------------------------------------

def test_get_concrete_program_with_tensors():
    sf = dy2st.to_static(branchy)
    cp = sf.get_concrete_program(t(rand(2, 3)), t(3, "int64"))
    assert isinstance(cp.main_program, rt.static.Program)
    assert [v.name for v in cp.inputs] == ["x", "n"]
    assert len(cp.outputs) == 1 and cp.outputs[0].dtype == "float32"
    assert "while" in op_types(cp.main_program)
    sf(t(rand(2, 3, seed=5)), t(2, "int64"))  # same signature: reuses it
    assert len(sf.program_cache) == 1
    assert sf.get_concrete_program(t(rand(2, 3)), t(7, "int64")) is cp


def test_get_concrete_program_with_input_specs():
    sf = dy2st.to_static(branchy)
    cp = sf.get_concrete_program(dy2st.InputSpec([None, 3], "float32", "image"),
                                 dy2st.InputSpec([], "int64", "steps"))
    assert [v.name for v in cp.inputs] == ["image", "steps"]
    assert list(cp.inputs[0].shape) == [-1, 3]
    assert cp.inputs[1].dtype == "int64"
    assert "while" in op_types(cp.main_program) and "cond" in op_types(cp.main_program)
    assert "while" in str(cp.main_program)


def test_get_concrete_program_uses_declared_input_spec():
    sf = dy2st.to_static(branchy, input_spec=[dy2st.InputSpec([None, 3], "float32", "x"),
                                              dy2st.InputSpec([], "int64", "n")])
    cp = sf.get_concrete_program()
    assert [v.name for v in cp.inputs] == ["x", "n"]
    assert "while" in op_types(cp.main_program)


def test_code_is_valid_python_and_to_code_matches():
    sf = dy2st.to_static(branchy)
    code = sf.code
    assert isinstance(code, str) and "def branchy" in code
    ast.parse(code)
    assert "_jst.While" in code and "_jst.IfElse" in code
    assert dy2st.to_code(branchy) == code
    assert dy2st.to_code(sf) == code


def test_rollback_returns_original_function():
    sf = dy2st.to_static(branchy)
    assert sf.rollback() is branchy


def test_rollback_on_layer_restores_eager_forward():
    net = dy2st.to_static(CondNet())
    net(t(rand(2, 4)))
    fwd = net.forward.rollback()
    assert not isinstance(net.forward, dy2st.StaticFunction)
    x = t(rand(2, 4, seed=3))
    np.testing.assert_allclose(fwd(x).numpy(), CondNet.forward(net, x).numpy())


# -- input_spec ------------------------------------------------------------------------------

SPEC = [dy2st.InputSpec([None, 3], "float32", "x")]


@pytest.mark.parametrize("bad, shown", [
    (np.ones((2, 4), "float32"), "[2, 4]"),   # fixed dim
    (np.ones((2, 3), "float64"), "[2, 3]"),   # dtype
    (np.ones((3,), "float32"), "[3]"),        # rank
    (np.ones((1, 2, 3), "float32"), "[1, 2, 3]"),
])
def test_input_spec_mismatch_raises_value_error_naming_both_shapes(bad, shown):
    sf = dy2st.to_static(lambda x: x * 2.0, input_spec=SPEC)
    with pytest.raises(ValueError) as info:
        sf(rt.to_tensor(bad))
    msg = str(info.value)
    assert shown in msg
    assert "[-1, 3]" in msg or "[None, 3]" in msg
    assert len(sf.program_cache) == 0


def test_input_spec_none_dims_share_one_program():
    @dy2st.to_static(input_spec=[dy2st.InputSpec([None, 3], "float32")])
    def f(x):
        s = x.sum(axis=1)
        while s.max() > 1.0:
            s = s * 0.5
        return s

    for batch in (1, 2, 7, 16):
        x = np.abs(rand(batch, 3, seed=batch)) * 4
        got = f(t(x)).numpy()
        s = x.sum(axis=1)
        while s.max() > 1.0:
            s = s * 0.5
        np.testing.assert_allclose(got, s, rtol=1e-5)
        assert got.shape == (batch,)
    assert len(f.program_cache) == 1
    assert "while" in op_types(f.concrete_program.main_program)


# -- layers: parameters, buffers, train/eval ------------------------------------------------

def test_optimizer_step_is_seen_by_next_static_call():
    rt.seed(3)
    net = dy2st.to_static(CondNet())
    opt = rt.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())
    x = t(rand(4, 4))
    before = net(x).numpy()
    loss = net(x).mean()
    loss.backward()
    assert net.fc.weight.grad is not None
    opt.step()
    opt.clear_grad()
    after = net(x).numpy()
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, CondNet.forward(net, x).numpy(), rtol=1e-5)
    assert len(net.forward.program_cache) == 1


def test_parameters_are_the_programs_tensors():
    net = dy2st.to_static(CondNet())
    net(t(rand(2, 4)))
    bound = net.forward.concrete_program.parameters
    ids = {id(p) for p in net.parameters()}
    assert bound and all(id(p) in ids for p in bound)


class DropBN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1D(6)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = self.bn(self.fc(x))
        if self.training:
            h = self.drop(h)
        return F.relu(h)


def test_train_eval_switch_dropout_and_batchnorm():
    rt.seed(4)
    net = dy2st.to_static(DropBN())
    rt.seed(4)
    eager = DropBN()
    x = t(rand(8, 4) * 2 + 1)
    mean0 = net.bn._mean.numpy().copy()
    net.train(), eager.train()
    rt.seed(11)
    a = net(x).numpy()
    rt.seed(11)
    b = eager(x).numpy()
    # running stats updated through the Program, exactly as eagerly
    assert not np.allclose(net.bn._mean.numpy(), mean0)
    np.testing.assert_allclose(net.bn._mean.numpy(), eager.bn._mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bn._variance.numpy(), eager.bn._variance.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert (a == 0).mean() > 0.2  # dropout zeroed some
    train_types = op_types(net.forward.concrete_program.main_program)
    assert "dropout" in train_types

    net.eval(), eager.eval()
    mean1 = net.bn._mean.numpy().copy()
    e1, e2 = net(x).numpy(), net(x).numpy()
    np.testing.assert_array_equal(e1, e2)  # eval is deterministic
    np.testing.assert_allclose(e1, eager(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(net.bn._mean.numpy(), mean1)  # no update in eval
    assert len(net.forward.program_cache) == 2
    eval_types = op_types(net.forward.concrete_program.main_program)
    assert "dropout" not in eval_types
    net.train()
    net(x)
    assert len(net.forward.program_cache) == 2  # back to the cached training Program
