"""Scenarios of Paddle's test_loop and test_break_continue, rewritten: tensor `while` conditions on
the argument (mixed with Python values under `and`/`or`/`not`), a lambda shadowing an argument's
name, `None` checks in the loop, loops whose condition holds no tensor, `for` over Python ranges
(negative steps, a step held in a name) with `rt.increment`, names first bound in the loop, object
attributes as loop state, a shape read in the condition, nested loops, list comprehensions in a
loop, `break`/`continue` under tensor conditions (dead code after them, a tensor `range` bound, a
local class), and a LayerDict iterated in forward then saved. Converted equals eager."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base

from .helpers import same

F = rt.nn.functional
fill = rt.tensor.fill_constant
as_var = base.dygraph.to_variable


def grows_from_argument(x):
    acc = as_var(x)
    while x < 10:
        acc = acc + x
        x = x + 1
    return acc


def python_condition(x):
    a = 1
    while not a > 4 and a > 0:  # no tensor: a Python loop
        x = x + 1
        a = a + 1
    return x


def lambda_shadowing_the_argument(x):
    acc = as_var(x)

    def relu(y):  # its `y` stays inside
        return F.relu(y)

    while x < 10:
        add = lambda x, y: x + y  # noqa: E731  (its `x` is not the loop's)
        acc = add(acc, x)
        x = x + 1
    return relu(acc)


def none_checks(x):
    acc = as_var(x) if x is not None else as_var(x + 1)
    x = as_var(x)
    flag = 1
    while x < 10:
        acc = acc + x if flag is not None else x + acc
        x = x + 1
    return acc


def either_of_many(x):
    acc = as_var(x)
    while x <= -1 or x < -3 or (x < -7 or x < -5) or (x >= 0 and x < 10):
        acc = acc + x
        x = x + 1
    return acc


def tensor_and_python_mixed(x):
    acc = as_var(x)
    a = 1
    while x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        acc = acc + x
        x = x + 1
        a = a + 1
    return acc


def shape_in_the_condition(x):
    acc = rt.zeros(shape=[1], dtype="float32")
    k = rt.to_tensor(x)
    dims = k.shape
    while k < 10 and dims[0] >= 1:
        acc += k.shape[0]
        k += 1
    return acc


def attributes_as_state(x):
    class Holder:
        def __init__(self):
            self.a, self.b, self.c = 3, 4, 5.0

    held = Holder()
    k = as_var(x)
    while k < 10:
        held.b = rt.zeros(shape=[1], dtype="float32")
        held.c = held.b + held.a + k.astype("float32")
        k += 1
    return held.c


def attributes_with_break_and_continue(x):
    class Holder:
        def __init__(self):
            self.a, self.b, self.c = 3, 4, 5.0

    held = Holder()
    k = as_var(x)
    while k < 10:
        held.b = rt.zeros(shape=[1], dtype="float32")
        held.c = held.b + held.a + k.astype("float32")
        k += 1
        if held.c < 0:
            continue
        if held.c > 8:
            break
    return held.c


WHILE_FNS = [grows_from_argument, python_condition, lambda_shadowing_the_argument, none_checks,
             either_of_many, tensor_and_python_mixed, shape_in_the_condition, attributes_as_state,
             attributes_with_break_and_continue]


@pytest.mark.parametrize("fn", WHILE_FNS, ids=[f.__name__ for f in WHILE_FNS])
def test_while_loops(fn):
    sf = dy2st.to_static(fn)
    for v in (0, -9, 4, 8):  # every one enters the loop; see below for one that never does
        x = as_var(np.array([v], "int32"))
        same(fn(x), sf(x))
    assert len(sf.program_cache) == 1


def test_state_of_a_loop_that_never_runs():
    # eager keeps the attribute's Python float; the Program gives it as a float32 tensor of that value
    x = as_var(np.array([11], "int32"))
    out = dy2st.to_static(attributes_as_state)(x)
    assert attributes_as_state(x) == 5.0 and out.dtype == "float32" and float(out) == 5.0


def made_in_each_step(n):
    for _ in range(n):
        ret = rt.zeros(shape=[1], dtype="float32")
        rt.increment(ret, value=2.0)
    return ret


def read_before_bound(n):
    x = fill(shape=[1, 2], dtype="int32", value=1)
    for k in range(n):
        if k > 1:
            s = a  # noqa: F821  (bound by the previous iteration)
        a = 1  # noqa: F841  (read by the next iteration)
        q, _ = x.shape
    return fill(shape=[1], dtype="int32", value=s + q)


def odd_steps(n):
    ret = rt.zeros(shape=[1], dtype="float32")
    for _ in range(1, 10, 2):
        rt.increment(ret, value=2.0)
    return ret


def negative_steps(n):
    ret = rt.zeros(shape=[1], dtype="float32")
    for _ in range(10, 1, -2):
        rt.increment(ret, value=2.0)
    return ret


def step_in_a_name(n):
    ret = rt.zeros(shape=[1], dtype="float32")
    step = -2
    for _ in range(10, 1, step):
        rt.increment(ret, value=2.0)
    return ret


def python_break(n):
    x = 0
    for k in range(3):
        if k == 2:
            break
        x += 1
    return x


def attributes_over_a_tensor_range(n):
    class Holder:
        def __init__(self):
            self.a, self.b, self.c = 3, 4, 5

    held = Holder()
    n = fill(shape=[1], value=n, dtype="int32")
    for _ in range(n):
        held.b = rt.zeros(shape=[1], dtype="float32")
        held.c = held.b + held.a
    return held.c


def bound_in_the_loop(n):
    for _ in range(n):
        ret = rt.zeros(shape=[3, 4, 5], dtype="float64")
    return ret


FOR_FNS = [made_in_each_step, read_before_bound, odd_steps, negative_steps, step_in_a_name, python_break,
           attributes_over_a_tensor_range, bound_in_the_loop]


@pytest.mark.parametrize("fn", FOR_FNS, ids=[f.__name__ for f in FOR_FNS])
def test_for_loops(fn):
    sf = dy2st.to_static(fn)
    for n in (100, 3):
        same(fn(n), sf(n))


def nested_ranges():
    two = fill(shape=[1], value=2, dtype="int32")
    three = fill(shape=[1], value=3, dtype="int32")
    for j in range(two):
        for _ in range(10):
            a = 2 + j
    for _ in range(three):
        b = rt.zeros(shape=[1], dtype="float32") + a
    return b


def comprehensions_in_a_loop(items):
    a = 1
    for _ in range(items):
        res = [v + a for v in items]
        res = [v for v in items]
        x = 1
    return res, x


@pytest.mark.parametrize("fn,args", [(nested_ranges, ()), (comprehensions_in_a_loop, (rt.to_tensor([3]),))])
def test_nested_loops_and_comprehensions(fn, args):
    same(fn(*args), dy2st.to_static(fn)(*args))


def skips_then_stops(x):
    x = as_var(x)
    for k in range(1, 10, 1):
        if k <= 4:
            x += 1
            continue
        else:
            x += 10010
            break
        x += 10086  # never runs
    a = fill(shape=[1], dtype="int64", value=0)
    b = fill(shape=[1], dtype="int32", value=3)
    for _ in range(b):
        if a <= 4:
            x += 1
            a += 1
            continue
        else:
            x += 10010
            break
        x += 10086
    return x


def for_inside_python_else(x):
    x = as_var(x)
    if False:
        pass
    else:
        for k in range(0, 10):
            if k > 5:
                x += 1
                break
            x += k
    if False:
        pass
    else:
        for k in range(0, 10):
            x += 1
            break
            x += k
    return x


def break_on_a_sum(x):
    x = rt.to_tensor(x)
    for k in range(10):
        if x.sum() > 5:
            break
            x += 10086
        x += k
        if k < 3:
            x = x * 2
    return x


def break_on_the_counter(x):
    x = rt.to_tensor(x)
    k = fill(shape=[1], dtype="int32", value=0)
    while k < 10:
        if k > 5:
            break
            x += 10086
        x += k.astype(x.dtype)
        k += 1
    return x


@pytest.mark.parametrize("fn", [skips_then_stops, for_inside_python_else, break_on_a_sum, break_on_the_counter])
def test_break_and_continue(fn):
    sf = dy2st.to_static(fn)
    for x in (np.zeros(1, "int64"), np.array([3], "int64")):
        same(fn(x), sf(x))
    if fn is break_on_a_sum:  # Paddle 2.x refused this one (a Python loop's break turned tensor)
        for x in (np.random.default_rng(0).random([10, 16]).astype("float32"), -np.ones([2, 3], "float32")):
            same(fn(x), sf(x))


class ThreeConvs(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layer_dict = rt.nn.LayerDict({f"conv{k}": rt.nn.Conv2D(3, 3, 1) for k in (1, 2, 3)})

    def forward(self, x):
        out = 0
        for name in self.layer_dict:
            out += self.layer_dict[name](x)
        return out


def test_layer_dict_iterated_in_forward_saves(tmp_path):
    rt.seed(4)
    net = ThreeConvs()
    static = dy2st.to_static(net, input_spec=[rt.static.InputSpec(shape=[None, 3, 8, 8], dtype="float32")])
    path = os.path.join(tmp_path, "three_convs")
    dy2st.save(static, path)
    loaded = dy2st.load(path)
    for n in (2, 1):
        x = rt.randn([n, 3, 8, 8])
        np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())
