"""Scenarios of Paddle's test_convert_operators, test_capture_free_vars and test_deal_inplace,
rewritten: a Layer whose ``__call__`` or ``forward`` is broken raises eager's error at the user's line,
a callable ``list`` subclass, `zeros([x.shape[0], 1])` under an unknown batch, returns of different
structure from a Python-decided `if`, zero-argument `super()` in a converted forward (also under a
tensor `if`, shadowed by a local `super`, and spelled `super(__class__, self)`), a closure, recursion
on Python ints, and layers applied twice to one input (BatchNorm, Sigmoid) or returning a parameter."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check, pair, same


class CallNotExist(rt.nn.Layer):
    def __call__(self):
        return rt.nn.not_exist_api


class CallableList(list):
    def __call__(self, x):
        return x


class ForwardNotExist(rt.nn.Layer):
    def forward(self):
        return 0


_NET = ForwardNotExist()
_NET.forward = "A string so that convert forward will fail"


def call_not_exist():
    net = CallNotExist()
    return net()


def forward_not_exist():
    return _NET()


def test_broken_call_and_forward_raise_eager_errors():
    with pytest.raises(AttributeError, match="not_exist_api"):
        dy2st.to_static(call_not_exist())
    with pytest.raises(TypeError, match="'str' object is not callable"):  # eager's error (Paddle's AST
        forward_not_exist()                                              # mode says AttributeError)
    with pytest.raises(TypeError, match="'str' object is not callable") as info:
        dy2st.to_static(forward_not_exist)()
    assert "return _NET()" in "".join(getattr(info.value, "__notes__", []))


def test_callable_list():
    def callable_list(x, y):
        callable_list = CallableList()
        return callable_list(x) + y

    assert dy2st.to_static(callable_list)(1, 2) == 3


class ShapeLayer(rt.nn.Layer):
    def forward(self, x):
        x = rt.reshape(x, [-1, x.shape[1]])
        bs = x.shape[0]  # unknown under the spec
        return rt.zeros([bs, 1], dtype="float32")


def test_zeros_from_an_unknown_batch():
    net = dy2st.to_static(ShapeLayer(), input_spec=[rt.static.InputSpec(shape=[None, 1])])
    for n in (4, 7):
        x = rt.zeros(shape=[n, 1], dtype="float32")
        np.testing.assert_array_equal(net(x).numpy(), x.numpy())
    assert len(net.forward.program_cache) == 1


def with_common_value(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z, 1
    else:
        c = x + 1
        z = x - 1
        return c, z


def without_common_value(x, use_cache=False):
    if use_cache:
        y = x + 1
        z = x + 2
        return y, z
    else:
        c = x + 1  # noqa: F841
        return None


@pytest.mark.parametrize("fn", [with_common_value, without_common_value])
@pytest.mark.parametrize("use_cache", [False, True])
def test_python_if_returns_of_different_structure(fn, use_cache):
    x = rt.to_tensor([[1, 2, 3], [4, 5, 6]])
    same(fn(x, use_cache), dy2st.to_static(fn)(x, use_cache))


class BaseLayer(rt.nn.Layer):
    def add_one(self, x):
        return x + 1


class SuperInForward(BaseLayer):
    def forward(self, x):
        return super().add_one(x)  # the free variable __class__


class SuperInControlFlow(BaseLayer):
    def forward(self, x):
        if x > 0:
            return super().add_one(x)
        else:
            return x


class UserDefinedSuper(BaseLayer):
    def forward(self, x):
        def super():
            class A:
                def add_one(self, x):
                    return x + 2
            return A()
        return super().add_one(x)


class SuperWithArguments(BaseLayer):
    def forward(self, x):
        y = super(__class__, self).add_one(x)
        return super(SuperWithArguments, self).add_one(y)  # noqa: UP008


@pytest.mark.parametrize("cls", [SuperInForward, SuperInControlFlow, UserDefinedSuper, SuperWithArguments])
def test_super_calls(cls):
    net = cls()
    check(net, (np.ones([], "float32"),), (np.full([], -1.0, "float32"),), grad=True)


def _closure():
    y = 1

    def simple_closure(x):
        return x + y
    return simple_closure


def recursive_call(x):
    if x == 1:
        return 1
    return x * recursive_call(x - 1)


def test_closure_and_recursion():
    check(_closure(), (np.ones([], "float32"),), grad=True)
    assert dy2st.to_static(recursive_call)(5) == 120


def twice(op, x):
    y = op(x)
    z = op(x)
    return y + z


@pytest.mark.parametrize("make", [lambda: rt.nn.BatchNorm2D(10), rt.nn.Sigmoid])
def test_layer_applied_twice(make):
    eager_op, static_op = make(), make()
    sf = dy2st.to_static(twice)
    for seed in (0, 1):  # the second call reuses the Program (and BatchNorm's updated statistics)
        x = arr(2, 10, 3, 3, seed=seed)
        ex, sx = rt.to_tensor(x, stop_gradient=False), rt.to_tensor(x, stop_gradient=False)
        want, got = twice(eager_op, ex), sf(static_op, sx)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(sx.grad.numpy(), ex.grad.numpy(), rtol=1e-5, atol=1e-6)
    for k, v in eager_op.state_dict().items():
        np.testing.assert_allclose(static_op.state_dict()[k].numpy(), v.numpy(), rtol=1e-6, err_msg=k)


class ParamReturn(rt.nn.Layer):
    def __init__(self, assign):
        super().__init__()
        self.weight = self.create_parameter(shape=[10], dtype="float32")
        self.assign = assign

    def forward(self, x):
        return rt.assign(self.weight) if self.assign else self.weight


class InputReturn(rt.nn.Layer):
    def forward(self, x):
        return x


@pytest.mark.parametrize("make", [lambda: ParamReturn(False), lambda: ParamReturn(True), InputReturn])
def test_parameter_or_input_returned(make):
    eager, static = pair(make)
    sf = dy2st.to_static(static)
    x = rt.to_tensor(arr(10), stop_gradient=False)
    for _ in range(2):
        want, got = eager(rt.assign(x)), sf(rt.assign(x))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.stop_gradient == want.stop_gradient
