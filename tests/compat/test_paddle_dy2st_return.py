"""Scenarios of Paddle's test_return, rewritten: `return` of an argument, from a nested function,
under tensor `if`s (with dead code after it), inside tensor `while` and Python `for` loops, through a
helper holding a tensor `if`, lists and tuples of one or many values, no `return`, Python-decided
returns (`if True`, `while True`, the first `for` iteration, a nested function), and a helper whose
Python `if` returns a different number of values. Converted equals eager on int and float inputs
of both signs; returns of different structure under a tensor condition raise Paddle's
``Dygraph2StaticException`` at the user's line, named once."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.dy2static.utils import Dygraph2StaticException
from runtime import base

from .helpers import same

as_var = base.dygraph.to_variable


def given_back(x):
    return as_var(x)


def from_inner_function(x):
    x = as_var(x)

    def inner(v):
        return v

    return inner(x)


def early_if(x):
    x = as_var(x)
    if x < 0:
        x -= 1
        return -x
    x += 3
    return x


def both_branches_return(x):
    x = as_var(x)
    if x > 0:
        x += 100
        return x
        x -= 3  # never runs
    else:
        x += 66
        return x
        x -= 88  # never runs


def inside_tensor_while(x):
    x = as_var(x)
    k = rt.tensor.fill_constant(shape=[1], dtype="int32", value=0)
    while k < 10:
        k += 1
        if k > 5:
            x += 110
            return x
        x += k.astype(x.dtype)
    return x


def inside_python_for(x):
    x = as_var(x)
    for k in range(10):
        if k <= 4:
            x += 1
            continue
        else:
            return x + 1000
    return x - 1


def _signed_step(x):
    if rt.mean(x.astype("float32")) < 0:
        return x + 1
    return x - 1


def through_helper(x):
    return _signed_step(as_var(x))


def one_in_list(x):
    x = as_var(x)
    x += 1
    return [x]


def many_in_list(x):
    x = as_var(x)
    x += 1
    return [x, x * 2, x * x]


def one_in_tuple(x):
    x = as_var(x)
    x += 1
    return (x,)


def many_in_tuple(x):
    x = as_var(x)
    x += 1
    return (x, x * 2, x * x)


def no_return(x):
    x = as_var(x)
    x + 1


def _python_decided(v):
    a = 2
    if a < 0:
        return v + 1
    return v * 2


def shape_kept_by_python_if(x):
    y = _python_decided(rt.ones([10]))  # [10], not a [1] of some merged output
    return rt.reshape(y, [2, 5])


def _pair(v):
    return v * 2, v + 1


def _pair_or_pair(v):
    if False:
        return v + 1, v - 1
    else:
        return _pair(v)


def python_if_choosing_a_helper(x):
    x = rt.to_tensor(x)
    y, z = _pair_or_pair(x)
    if y.shape[0] > 1:
        y = y + 1
    return y, z


def if_true_returns(x):
    if True:
        return 1
    else:
        x = x + 1


def while_true_returns(x):
    while True:
        return 12
    return 10


def for_returns_at_once(x):
    for _ in range(10):
        return 12
    return 10


def nested_python_returns(x):
    def pick():
        if True:
            return 1
            return 2
        else:
            return 4
        return 3

    return pick()


FNS = [given_back, from_inner_function, early_if, both_branches_return, inside_tensor_while,
       inside_python_for, through_helper, one_in_list, many_in_list, one_in_tuple, many_in_tuple,
       no_return, shape_kept_by_python_if, python_if_choosing_a_helper, if_true_returns,
       while_true_returns, for_returns_at_once, nested_python_returns]
INPUTS = [np.ones(1, "int32"), -np.ones(1, "int32"), np.array([3.5], "float32"), np.array([-7], "int64")]


@pytest.mark.parametrize("fn", FNS, ids=[f.__name__ for f in FNS])
def test_returns_match_eager(fn):
    sf = dy2st.to_static(fn)
    for x in INPUTS:
        eager, static = fn(x), sf(x)
        same(eager, static)
        assert type(static) is type(eager) or rt.is_tensor(static)


def pair_or_one(x):
    x = as_var(x)
    y = x + 1
    if x > 0:
        return x, y
    else:
        return x


def none_or_pair(x):
    x = as_var(x)
    y = x + 1
    if x > 0:
        return None
    else:
        return x, y


def pair_or_bare(x):
    x = as_var(x)
    y = x + 1
    if x < 0:
        return x, y
    else:
        return


@pytest.mark.parametrize("fn,line", [(pair_or_one, "if x > 0:"), (none_or_pair, "if x > 0:"),
                                     (pair_or_bare, "if x < 0:")])
def test_returns_of_different_structure_under_a_tensor_if(fn, line):
    with pytest.raises(Dygraph2StaticException, match="Your if/else have different number of return value") as info:
        dy2st.to_static(fn)(INPUTS[0])
    message = str(info.value)
    assert message.count('test_paddle_dy2st_return.py", line') == 1, message
    assert line in message
