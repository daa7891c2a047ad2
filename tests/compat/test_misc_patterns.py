"""Smaller Paddle dy2st test patterns (test_container.py, test_layer_hook.py, test_detach.py,
test_item.py, test_duplicate_output.py, test_multi_forward.py, test_decorator_transform.py,
test_deepcopy.py, test_inplace_assign.py, test_backward_without_params.py, test_drop_path.py,
test_declarative.py, test_typehint.py, test_jit_setitem.py)."""
import copy
import functools

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

from .helpers import arr, check
from error_helpers import notes

X = arr(3, 4)


def _pair(cls, *args):
    rt.seed(5)
    eager = cls(*args)
    static = cls(*args)
    static.set_state_dict(eager.state_dict())
    return eager, dy2st.to_static(static)


def _close(net, eager, *inputs):
    a = net(*[rt.to_tensor(i) for i in inputs])
    b = eager(*[rt.to_tensor(i) for i in inputs])
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


class Gate(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            y = F.relu(y)
        return y


class SequentialOfUserLayers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(Gate(), nn.ReLU(), Gate())
        self.named = nn.Sequential(("a", Gate()), ("b", nn.Linear(4, 2)))

    def forward(self, x):
        return self.named(self.seq(x))


def test_sequential_holding_user_layers_with_control_flow():
    eager, net = _pair(SequentialOfUserLayers)
    for s in (0, 1, 2):
        _close(net, eager, arr(3, 4, seed=s))
    ops = {op.type for b in net.forward.program_cache.last().main_program.blocks for op in b.ops}
    assert "cond" in ops


class Hooked(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.fc.register_forward_post_hook(lambda layer, inp, out: out * 2)
        self.register_forward_pre_hook(lambda layer, inp: (inp[0] + 1,))

    def forward(self, x):
        return self.fc(x)


def test_forward_pre_and_post_hooks_run_in_the_program(tmp_path):
    eager, net = _pair(Hooked)
    _close(net, eager, X)
    path = str(tmp_path / "hooked")
    dy2st.save(net, path, input_spec=[dy2st.InputSpec([None, 4], "float32")])
    np.testing.assert_allclose(dy2st.load(path)(rt.to_tensor(X)).numpy(), eager(rt.to_tensor(X)).numpy(),
                               rtol=1e-5)


def detach_and_item(x):
    y = x * 2
    z = y.detach() * y
    n = x.shape[0]
    return z, x.sum().item() if False else x.sum(), n


def test_detach_stops_the_gradient():
    check(detach_and_item, (X,), grad=True)


def duplicate_outputs(x):
    y = x + 1
    return y, y, x


def test_the_same_value_returned_twice():
    check(duplicate_outputs, (X,), grad=True)


def test_one_layer_called_with_several_shapes_and_both_static_and_eager():
    eager, net = _pair(Gate)
    for shape in ((2, 4), (5, 4), (2, 4)):
        _close(net, eager, arr(*shape))
    assert len(net.forward.program_cache) == 2


def user_decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


@user_decorator
def decorated(x):
    if x.mean() > 0:
        return x * 3
    return x


def calls_decorated(x):
    return decorated(x) * 2


def test_user_decorated_functions_keep_their_decorator():
    check(decorated, (X,), (-X,), programs=1, grad=True)
    check(calls_decorated, (X,), (-X,), programs=1, grad=True)


def test_deepcopy_of_a_converted_layer():
    eager, net = _pair(Gate)
    _close(net, eager, X)
    twin = copy.deepcopy(net)
    _close(twin, eager, X)
    twin.fc.weight.set_value(np.zeros((4, 4), "float32"))
    _close(net, eager, X)  # the original keeps its own parameters


def inplace_assign(x):
    y = rt.zeros_like(x)
    rt.assign(x * 2, output=y)
    return y + 1


def test_assign_into_an_output_tensor():
    check(inplace_assign, (X,), grad=True)


def backward_to_input_only(x):
    return (x * x).sum()


def test_backward_without_parameters_reaches_the_input():
    check(backward_to_input_only, (X,), grad=True)


def drop_path(x, drop_prob=0.0, training=False):
    if drop_prob == 0.0 or not training:
        return x
    keep = 1 - drop_prob
    shape = [x.shape[0]] + [1] * (x.ndim - 1)
    mask = rt.floor(keep + rt.rand(shape, dtype=x.dtype))
    return x / keep * mask


class DropPath(nn.Layer):
    def __init__(self, p=0.3):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training) + 1


def test_drop_path_eval_is_identity_and_train_is_a_random_mask():
    net = dy2st.to_static(DropPath())
    net.eval()
    np.testing.assert_allclose(net(rt.to_tensor(X)).numpy(), X + 1, rtol=1e-6)
    net.train()
    out = net(rt.to_tensor(np.ones((64, 2), "float32"))).numpy() - 1
    assert np.all(np.isclose(out, 0.0) | np.isclose(out, 1 / 0.7))
    assert 0 < (out == 0).sum() < out.size


def with_spec_and_python(x, y=None, k=2):
    out = x * k
    if y is not None:
        out = out + y
    return out


def test_input_spec_with_python_arguments_and_keywords():
    sf = dy2st.to_static(with_spec_and_python, input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
    x = rt.to_tensor(X)
    np.testing.assert_allclose(sf(x).numpy(), X * 2, rtol=1e-6)
    np.testing.assert_allclose(sf(x, k=5).numpy(), X * 5, rtol=1e-6)
    np.testing.assert_allclose(sf(rt.to_tensor(arr(7, 4)), k=5).numpy(), arr(7, 4) * 5, rtol=1e-6)
    assert len(sf.program_cache) == 2
    with pytest.raises(ValueError):
        sf(rt.to_tensor(arr(3, 5)))


def test_tensor_argument_beyond_the_input_spec_is_described_by_itself():
    sf = dy2st.to_static(with_spec_and_python, input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
    x, y = rt.to_tensor(X), rt.to_tensor(X * 3)
    np.testing.assert_allclose(sf(x, y, k=3).numpy(), X * 3 + X * 3, rtol=1e-6)
    x5, y5 = rt.to_tensor(arr(5, 4)), rt.to_tensor(arr(5, 4, seed=1))
    np.testing.assert_allclose(sf(x5, y5).numpy(), arr(5, 4) * 2 + arr(5, 4, seed=1), rtol=1e-6)
    assert len(sf.program_cache) == 2      # the extra tensor's exact shape is part of the key
    with pytest.raises(ValueError, match="expects shape"):
        sf(rt.to_tensor(arr(3, 5)), y)


def annotated(x: rt.Tensor, n: int = 2) -> rt.Tensor:
    y: rt.Tensor = x * n
    if y.mean() > 0:
        y = y - 1
    return y


def test_type_annotations_are_kept_out_of_the_way():
    check(annotated, (X,), (-X,), programs=1, grad=True)


def setitem_patterns(x, i):
    y = rt.zeros([3, 4], "float32")
    y[0] = x[0]
    y[1:3] = x[1:3] * 2
    y[:, 0] = 7.0
    y[i] = y[i] + 1
    return y


def test_item_writes_including_a_tensor_index_with_gradients():
    check(setitem_patterns, (X, rt.to_tensor(1)), (X, rt.to_tensor(2)), programs=1, grad=True)


def setitem_in_branch(x):
    y = x * 1
    if x.mean() > 0:
        y[0] = 0.0
    else:
        y[0] = 1.0
    return y


def test_item_write_in_both_branches_of_a_tensor_if():
    check(setitem_in_branch, (X + 1,), (X - 1,), programs=1, grad=True)


class BuildsALayerInForward(nn.Layer):
    def forward(self, x):
        fc = nn.Linear(4, 2)
        return fc(x)


def test_layer_built_inside_forward_is_refused_at_the_users_line():
    net = dy2st.to_static(BuildsALayerInForward())
    with pytest.raises(RuntimeError, match="Create the Layer in __init__") as err:
        net(rt.to_tensor(X))
    assert "fc = nn.Linear(4, 2)" in notes(err.value)  # the place is a note
