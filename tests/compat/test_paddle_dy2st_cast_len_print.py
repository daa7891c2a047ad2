"""Scenarios of Paddle's test_cast, test_len, test_assert and test_print, rewritten. `bool`/`int`/
`float` of a one-element tensor give its value (a 0-d tensor of the cast's kind where the Program
computes it: int64, bool, float64) and of a larger one raise eager's TypeError at the user's line (Paddle casts
elementwise instead); `len` of a tensor and of a tensor array; `assert` on tensors and Python
values fails exactly when eager does; `print` writes what eager writes."""
import contextlib
import io

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base


def to_bool(x):
    return bool(rt.to_tensor(x))


def to_int(x):
    return int(rt.to_tensor(x))


def to_float(x):
    return float(rt.to_tensor(x))


def int_of_number(x):
    return int(x)


def chained(x):
    x = int(rt.to_tensor(x))
    x = float(x)
    x = bool(x)
    return float(x)


CASTS = [(to_bool, np.array([2.0], "float32"), "bool", True), (to_bool, np.array([0.0], "float32"), "bool", False),
         (to_int, np.array([6.7], "float32"), "int64", 6), (to_int, np.array([-6.7], "float32"), "int64", -6),
         (to_float, np.array([True]), "float64", 1.0), (chained, np.array([6.7], "float32"), "float64", 1.0),
         (chained, np.array([0.4], "float32"), "float64", 0.0)]  # a returned Python float: float64, its double


@pytest.mark.parametrize("fn,x,dtype,value", CASTS)
def test_casts_of_one_element(fn, x, dtype, value):
    eager = fn(x)
    assert type(eager) is type(value) and eager == value
    out = dy2st.to_static(fn)(x)
    assert out.dtype == dtype and out.shape == []
    assert out.item() == value


def test_cast_of_a_python_number_stays_python():
    out = dy2st.to_static(int_of_number)(3.14)
    assert type(out) is int and out == 3


@pytest.mark.parametrize("fn,shape", [(to_bool, (16, 32)), (to_float, (8, 16)), (chained, (8, 32))])
def test_casts_of_many_elements_raise_as_eager(fn, shape):
    x = np.ones(shape, "float32")
    with pytest.raises(TypeError, match="needs a tensor with one element") as eager:
        fn(x)
    with pytest.raises(TypeError, match="needs a tensor with one element") as static:
        dy2st.to_static(fn)(x)
    assert str(eager.value).splitlines()[0] == str(static.value).splitlines()[0]
    assert 'test_paddle_dy2st_cast_len_print.py", line' in str(static.value)


def len_of_tensor(x):
    return len(base.dygraph.to_variable(x))


def len_of_array(x):
    x = base.dygraph.to_variable(x)
    k = rt.tensor.fill_constant(shape=[1], dtype="int64", value=0)
    arr = rt.tensor.array_write(x, i=k)
    return len(arr)


@pytest.mark.parametrize("fn,want", [(len_of_tensor, 10), (len_of_array, 1)])
def test_len(fn, want):
    x = np.random.default_rng(0).random([10, 16]).astype("float32")
    assert fn(x) == want
    assert int(dy2st.to_static(fn)(x)) == want


def assert_tensor(x):
    assert base.dygraph.to_variable(x)


def assert_value(x=True):
    assert x


@pytest.mark.parametrize("fn,x,fails", [(assert_tensor, np.array([False]), True),
                                        (assert_tensor, np.array([True]), False),
                                        (assert_tensor, np.array([0]), True),
                                        (assert_tensor, np.array([1]), False),
                                        (assert_value, False, True), (assert_value, True, False)])
def test_assert(fn, x, fails):
    for run in (fn, dy2st.to_static(fn)):
        if fails:
            with pytest.raises(AssertionError):
                run(x)
        else:
            run(x)


def print_tensor(x):
    print(rt.to_tensor(x))


def print_f_string(x):
    print(f"PrintTensor: {rt.to_tensor(x)}")


def print_percent(x):
    print("PrintTensor: %s" % (rt.to_tensor(x)))


def print_in_python_if(x):
    t = rt.to_tensor(x)
    if len(t.shape) > 1:
        print(t)
    else:
        print(t * 3)


def print_two_calls(x):
    t = rt.to_tensor(x)
    print(t)
    print(t * 2)


def print_two_values(x):
    t = rt.to_tensor(x)
    print(t, t * 2)


def print_with_options(x):
    print("Tensor", rt.to_tensor(x), end="\n\n", sep=": ")


def _printed(fn, x):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(x)
    return buf.getvalue()


PRINTS = [print_tensor, print_f_string, print_percent, print_in_python_if, print_two_calls,
          print_two_values, print_with_options]


@pytest.mark.parametrize("fn", PRINTS, ids=[f.__name__ for f in PRINTS])
def test_print_writes_what_eager_writes(fn):
    x = np.arange(5, dtype="int32")
    want = _printed(fn, x)
    sf = dy2st.to_static(fn)
    assert _printed(sf, x) == want
    assert _printed(sf, x) == want  # the cached Program prints again


def print_argument(x):
    print(x)


def test_print_of_an_array_argument_prints_the_tensor_it_is_fed_as():
    # as in Paddle, a numpy argument of a converted function is fed as a Tensor
    x = np.arange(5, dtype="int32")
    assert _printed(dy2st.to_static(print_argument), x) == _printed(print, rt.to_tensor(x))
