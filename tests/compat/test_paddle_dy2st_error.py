"""Scenarios of Paddle's test_error, rewritten: each error a converted function raises keeps its
eager type and points at the user's lines, the lines of the user functions that called there first
(as Paddle's "In transformed code" shows the chain): a bad dtype in a function the converted one
calls, a reshape to a wrong size while the Program is built and while it runs (a size from
`fill_constant`), the same error from `dy2st.save`, a missing dict key, numpy called on a traced
value, and `set_state_dict` of a computed value in `forward`. Paddle's test spelled its bad dtype
`"int"`, which Paddle 3.3 reads as int64 (and `"float"` as float64, as numpy does): so does the
runtime now (`"float"` was float32)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base as fluid
from tests.compat.helpers import same

HERE = "test_paddle_dy2st_error.py"


def _text(exc):
    return "\n".join([str(exc), *getattr(exc, "__notes__", [])])


def inner_func():
    rt.tensor.fill_constant(shape=[1, 2], value=9, dtype="int31")
    return


def error_in_compile_time(x):
    x = fluid.dygraph.to_variable(x)
    inner_func()
    if rt.mean(x) < 0:
        x_v = x - 1
    else:
        x_v = x + 1
    return x_v


def test_error_in_a_called_function_shows_the_call_then_the_line():
    with pytest.raises(TypeError, match="unknown dtype 'int31'") as info:
        dy2st.to_static(error_in_compile_time)(np.ones([3, 2]))
    text = _text(info.value)
    call, line = text.index("    inner_func()"), text.index('dtype="int31")')
    assert HERE in text and "in error_in_compile_time" in text and "in inner_func" in text
    assert call < line  # outermost first, as a Python traceback reads


def error_in_compile_time_2(x):
    x = fluid.dygraph.to_variable(x)
    x = rt.reshape(x, shape=[1, 2])
    return x


def error_in_runtime(x):
    x = fluid.dygraph.to_variable(x)
    two = rt.tensor.fill_constant(shape=[1], value=2, dtype="int32")

    x = rt.reshape(x, shape=[1, two])

    return x


@pytest.mark.parametrize("fn, where", [(error_in_compile_time_2, "while building the Program"),
                                       (error_in_runtime, "while running the Program")])
def test_reshape_to_a_wrong_size(fn, where):
    with pytest.raises(ValueError, match="reshape"):
        fn(np.ones([3, 2]))
    with pytest.raises(ValueError, match="reshape") as info:
        dy2st.to_static(fn)(np.ones([3, 2]))
    text = _text(info.value)
    assert where in text and HERE in text and "x = rt.reshape(x, shape=[1," in text


class TabInDocstring(rt.nn.Layer):
    def forward(self):
        return self.test_func()

    def test_func(self):
        """
        NOTE: The next line has a tab (Paddle's converter raises IndentationError on it).
	A tab here.
        """  # fmt: skip
        return 1


def test_method_with_a_tab_in_its_docstring_converts():
    assert dy2st.to_static(TabInDocstring())() == 1


class ErrorInForward(rt.nn.Layer):
    def __init__(self, fc_size=20):
        super().__init__()
        self._linear = rt.nn.Linear(fc_size, fc_size)

    @dy2st.to_static(input_spec=[rt.static.InputSpec(shape=[20, 20], dtype="float32")])
    def forward(self, x):
        y = self._linear(x)
        z = rt.tensor.fill_constant(shape=[1, 2], value=9, dtype="int31")
        out = rt.mean(y[z])
        return out


def test_save_reports_the_line_in_forward(tmp_path):
    with pytest.raises(TypeError, match="int31") as info:
        dy2st.save(ErrorInForward(), str(tmp_path / "model"))
    text = _text(info.value)
    assert "dy2st.save" in text and HERE in text and 'z = rt.tensor.fill_constant(shape=[1, 2]' in text


def key_error(x):
    d = {"x": x}
    y = d["y"] + x
    return y


def numpy_api(x):
    a = rt.to_tensor([1, 2]) + x
    b = np.sum(a.numpy())
    return b


def test_key_error_and_numpy_on_a_traced_value():
    with pytest.raises(KeyError, match="'y'") as info:
        dy2st.to_static(key_error)(rt.to_tensor([1]))
    assert 'y = d["y"] + x' in _text(info.value)
    with pytest.raises(TypeError, match="numpy") as info:
        dy2st.to_static(numpy_api)(rt.to_tensor([1]))
    assert "b = np.sum(a.numpy())" in _text(info.value)


class SetStateDictInForward(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = rt.nn.Linear(5, 2)

    def forward(self, x):
        old_dict = self.state_dict()
        drop_w = rt.nn.functional.dropout(old_dict["linear.weight"])
        old_dict["linear.weight"] = drop_w
        self.set_state_dict(old_dict)
        return self.linear(x)


def test_set_state_dict_of_a_computed_value_in_forward():
    with pytest.raises(ValueError, match="set_state_dict") as info:
        dy2st.to_static(SetStateDictInForward())(rt.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert "self.set_state_dict(old_dict)" in _text(info.value)


# What PaddlePaddle 3.3 makes of the C-style dtype names (zeros, full, astype, cast, fill_constant).
PADDLE_DTYPES = {"int": "int64", "float": "float64", "double": "float64", "half": "float16",
                 "long": "int64", "short": "int16", "bool": "bool", float: "float64", int: "int64"}


@pytest.mark.parametrize("name", list(PADDLE_DTYPES), ids=str)
def test_dtype_spellings_as_paddle(name):
    def make(x):
        return (rt.zeros([2], dtype=name), rt.full([2], 1, dtype=name), x.astype(name), rt.cast(x, name),
                rt.tensor.fill_constant(shape=[1, 2], value=9, dtype=name))

    x = rt.ones([2])
    want = make(x)
    assert all(t.dtype == PADDLE_DTYPES[name] for t in want)
    same(want, dy2st.to_static(make)(x))
