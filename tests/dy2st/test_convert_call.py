"""`_jst.Call`: what is converted, what is left alone, and caching."""
import math

import numpy as np

import runtime as rt
from dy2st.conversion import convert_call as cc
from dy2st.conversion.transform import transform_function


def user_fn(x):
    if x > 0:
        return x
    return -x


@cc.not_to_static
def marked(x):
    if x > 0:
        return x
    return -x


class Adder:
    def __call__(self, x):
        return x + 1 if x > 0 else x - 1


def test_user_functions_are_converted_and_cached():
    first = cc.convert_call(user_fn)
    assert first is not user_fn and first(-3) == 3
    assert cc.convert_call(user_fn) is first


def test_library_builtin_and_marked_functions_are_left_alone():
    for fn in (len, math.sqrt, np.sum, rt.relu, marked, int, Adder):
        assert cc.convert_call(fn) is fn
    assert cc.is_not_to_static(marked)


def test_methods_and_callable_objects_are_bound_to_their_object():
    adder = Adder()
    converted = cc.convert_call(adder)
    assert converted.__self__ is adder and converted(2) == 3 and converted(-2) == -3


def test_layer_forward_is_converted_but_runtime_layers_are_not():
    class Block(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = rt.nn.Linear(2, 2)

        def forward(self, x):
            if x.sum() > 0:
                return self.fc(x)
            return x

    block = Block()
    assert cc.convert_call(block.fc) is block.fc
    converted = cc.convert_call(block)
    assert converted.__self__ is block
    x = rt.to_tensor(np.ones([1, 2], "float32"))
    np.testing.assert_allclose(converted(x).numpy(), block(x).numpy())


def test_generated_code_wraps_user_calls_only():
    def f(x):
        y = rt.relu(x)
        z = user_fn(len([1, 2]))
        return np.sum(y.numpy()) + z

    source = transform_function(f).source
    assert "_jst.Call(user_fn)" in source
    assert "rt.relu(x)" in source and "np.sum(y.numpy())" in source
    assert "_jst.Call(len" not in source and "_jst.Len([1, 2])" in source


def test_zero_argument_super_in_converted_method():
    class Base(rt.nn.Layer):
        def forward(self, x):
            return x * 2

    class Child(Base):
        def forward(self, x):
            if x > 0:
                return super().forward(x) + 1
            return x

    child = Child()
    converted = cc.convert_call(child)
    assert converted(3) == 7 and converted(-1) == -1
