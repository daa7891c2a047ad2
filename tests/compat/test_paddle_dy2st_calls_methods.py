"""Scenarios of Paddle's test_convert_call, test_isinstance, test_closure_analysis, test_tensor_methods,
test_unuseful_inputs, test_spec_names and test_warning, rewritten: converted functions and methods
calling each other (with `logging`, a lambda, a staticmethod going through numpy, `not_to_static`),
`isinstance` on sub-layers deciding a Python branch, Python lists and numpy arrays in Python loops,
Tensor methods, a converted sub-layer taking a list input whose unused item gets no gradient, one
Program for any aliasing of the same-shaped inputs, and `None` on one side of a tensor `if`."""
import logging

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base, nn

from .helpers import same

Constant = nn.initializer.Constant


def _eager_and_converted(fn, *args):
    """``fn`` (already decorated with to_static) with conversion off, then on."""
    dy2st.enable_to_static(False)
    try:
        eager = fn(*args)
    finally:
        dy2st.enable_to_static(True)
    same(eager, fn(*args))


@dy2st.to_static(full_graph=True)
def shift_by_mean(x):
    if rt.mean(x).numpy() > 5:
        x = x - 1
    else:
        x = x + 1
    return x


@dy2st.to_static(full_graph=True)
def nested_closure(x):
    x = base.dygraph.to_variable(x)

    def give():
        return x

    return give()


@dy2st.to_static(full_graph=True)
def logs_then_shifts(x):
    logging.getLogger("dy2st-port-test").info("called")
    if rt.mean(x).numpy() > 5:
        x = x - 1
    else:
        x = x + 1
    return x


class ThroughNumpy:
    @staticmethod
    def add(a, b):
        return rt.to_tensor(a.numpy() + b.numpy())


@dy2st.to_static(full_graph=True)
def static_method_call(x):
    return ThroughNumpy().add(x, x)


class Signed:
    @staticmethod
    def sum(x):  # named like a Tensor method: still user code, converted with its tensor `if`
        if x.mean() > 0:
            return x.sum() * 2
        return x.sum() - 1

    @classmethod
    def add(cls, x, y):
        return cls.sum(x) + y


def through_the_class(x):
    return Signed.sum(x) + Signed.add(x, 1.0)


def through_a_new_instance(x):
    return Signed().sum(x) + ThroughNumpy().add(x, x).sum()


@pytest.mark.parametrize("fn", [through_the_class, through_a_new_instance])
def test_methods_named_like_tensor_methods_reached_through_the_class(fn):
    sf = dy2st.to_static(fn)
    for v in (1.5, -2.0):
        x = rt.to_tensor(np.array([v, 0.5], "float32"))
        same(fn(x), sf(x))
    assert len(sf.program_cache) == 1
    ops = {op.type for blk in sf.program_cache.last().main_program.blocks for op in blk.ops}
    assert "cond" in ops


identity = lambda v: v  # noqa: E731


class ConvBlock(nn.Layer):
    def __init__(self):
        super().__init__()
        self._conv = nn.Conv2D(3, 2, 3, weight_attr=rt.ParamAttr(initializer=Constant(0.99)),
                               bias_attr=rt.ParamAttr(initializer=Constant(0.5)))

    @dy2st.to_static(full_graph=True)
    def forward(self, x):
        y = shift_by_mean(x)
        y = identity(y)
        return self.copy(y)

    @dy2st.to_static(full_graph=True)
    def copy(self, x):
        return rt.assign(x)


class Outer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = ConvBlock()
        self.fc = nn.Linear(5, 1, weight_attr=rt.ParamAttr(initializer=Constant(0.99)),
                            bias_attr=rt.ParamAttr(initializer=Constant(0.5)))
        self.act = nn.ReLU()

    @dy2st.to_static(full_graph=True)
    def forward(self, x):
        return self.act(self.fc(self.conv(x)))


@pytest.mark.parametrize("scale", [1.0, 7.0])
def test_converted_callers_and_callees(scale):
    x = rt.to_tensor(np.random.default_rng(0).random((1, 3, 3, 5)).astype("float32") * scale)
    for fn in (Outer(), shift_by_mean, logs_then_shifts, static_method_call):
        _eager_and_converted(fn, x)
    _eager_and_converted(nested_closure, np.random.default_rng(1).random([10, 16]).astype("float32"))


class SumsWithPythonIf(nn.Layer):
    def sum(self, x):
        if x.shape[0] > 1:
            res = x + 1
        res = rt.sum(x)
        return res

    def outer(self, x):
        return self.sum(x)


def test_not_to_static_keeps_the_source():
    net = SumsWithPythonIf()
    dy2st.not_to_static(net.sum)
    x = rt.ones([2, 3])
    same(net.outer(x), dy2st.to_static(net.outer)(x))
    sf = dy2st.to_static(net.sum)
    same(net.sum(x), sf(x))
    assert "if x.shape[0] > 1" in sf.code


class PassThrough(nn.Layer):
    def forward(self, x):
        return x


class AddsAttr(nn.Layer):
    def __init__(self):
        super().__init__()
        self.attr = None

    def forward(self, x):
        return x + self.attr


class Picks(nn.Layer):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        if isinstance(self.inner, (AddsAttr,)):
            self.inner.attr = x
        return self.inner(x)


class Chain(nn.Layer):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.LayerList(layers)

    def forward(self, x):
        res = x
        for layer in self.layers:
            if isinstance(layer, AddsAttr):
                layer.attr = x
            res = layer(res)
        return res


@pytest.mark.parametrize("make", [lambda: Picks(PassThrough()), lambda: Picks(AddsAttr()),
                                  lambda: Chain([PassThrough() if k % 2 else AddsAttr() for k in range(10)])],
                         ids=["pass-through", "adds-attr", "chain"])
def test_isinstance_on_sublayers(make):
    x = rt.ones(shape=[2, 3], dtype="int32")
    same(make()(x), dy2st.to_static(make())(x))


def python_lists(x):
    grown, shrunk = [], list(range(20))
    for k in range(10):
        grown.append(k)
        shrunk.pop(k)
    nested = []

    def push():
        nested.append(0)

    push()
    kept = {"a": []}
    for _ in range(3):
        kept["a"].append(1)
    return grown, shrunk, nested, kept, x


def numpy_in_loops(x):
    a = np.array([1, 2, 3])
    for _ in range(3):
        np.append(a, 4)  # the result is dropped, as eagerly
    return a, x + 1


def name_set_in_a_nested_function(x):
    def inner():
        if True:
            hidden = 1  # noqa: F841
    inner()
    return hidden  # noqa: F821


@pytest.mark.parametrize("fn", [python_lists, numpy_in_loops])
def test_python_values_in_python_loops(fn):
    x = rt.to_tensor([3])
    eager, static = fn(x), dy2st.to_static(fn)(x)
    for a, b in zip(eager, static):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            same(a, b)


def test_name_bound_only_in_a_nested_function_is_a_name_error():
    for run in (name_set_in_a_nested_function, dy2st.to_static(name_set_in_a_nested_function)):
        with pytest.raises(NameError, match="hidden"):
            run(rt.to_tensor([3]))


def cloned(x):
    return rt.to_tensor(x).clone()


def cleared(x):
    x = rt.to_tensor(x)
    x.clear_gradient()  # Paddle refuses it while converting; here it does what it does eagerly
    return x


def item_of_clone(x):
    return rt.to_tensor(x).clone().item()


def size_of_reshaped(x):
    x = rt.reshape(rt.to_tensor(x), rt.shape(x))
    return x.size


def true_division(x, y):
    return x / y


@pytest.mark.parametrize("fn,args", [(cloned, (rt.ones([1, 2, 3]),)), (cleared, (rt.zeros([2, 2]),)),
                                     (item_of_clone, (rt.ones([1]),)), (size_of_reshaped, (rt.ones([1, 2, 3]),)),
                                     (true_division, (rt.to_tensor([3], "int64"), rt.to_tensor([4], "int64")))])
def test_tensor_methods(fn, args):
    same(fn(*args), dy2st.to_static(fn)(*args))


def test_size_over_an_unknown_dim():
    sf = dy2st.to_static(size_of_reshaped, input_spec=[rt.static.InputSpec([None, 2, 3])])
    assert int(sf(rt.ones([4, 2, 3]))) == 24 and int(sf(rt.ones([1, 2, 3]))) == 6


class PicksFromList(nn.Layer):
    def __init__(self, level):
        super().__init__()
        self.level = level
        self._linear = nn.Linear(5, 2)

    def forward(self, items):
        return self._linear(items[self.level])


class TwoHeads(nn.Layer):
    def __init__(self, level, convert):
        super().__init__()
        self._linear1 = nn.Linear(10, 5)
        self._linear2 = nn.Linear(10, 5)
        self.picker = PicksFromList(level)
        if convert:
            dy2st.to_static(self.picker)

    def forward(self, x):
        return self.picker([self._linear1(x), self._linear2(x)])


@pytest.mark.parametrize("level", [0, 1])
def test_converted_sublayer_with_an_unused_list_item(level):
    runs = []
    for convert in (False, True):
        rt.seed(2)
        net = TwoHeads(level, convert)
        out = net(rt.ones([10, 10]) * 0.3)
        out.mean().backward()
        runs.append((out, [p.grad for p in net.parameters()]))
    same(runs[0][0], runs[1][0])
    for a, b in zip(runs[0][1], runs[1][1]):
        assert (a is None) == (b is None)  # the unused head's parameters get no gradient
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())


class SumOfFour(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 3)

    def forward(self, x, y, m, n):
        outs = []
        for _ in [x, y, m, n]:
            outs.append(self.fc(rt.reshape(x, [-1, 16])))
        return rt.sum(rt.stack(outs))


def test_one_program_for_every_aliasing_of_the_inputs():
    rt.seed(1)
    eager = SumOfFour()
    net = SumOfFour()
    net.set_state_dict(eager.state_dict())
    net = dy2st.to_static(net)
    x, y, m, n = (rt.randn([4, 2, 8]) for _ in range(4))
    for args in ([x, y, m, n], [x, x, m, n], [x, x, m, m], [n, n, y, y], [x, y, x, y], [x, x, x, x]):
        same(eager(*args), net(*args))
        assert net.forward.get_traced_count() == 1


def none_in_one_branch(a):
    b = rt.to_tensor(2)
    if a > b:
        b = rt.to_tensor(3)
    else:
        b = None
    return a * 2


@pytest.mark.parametrize("v", [1, 5])
def test_none_in_one_branch_of_an_unused_name(v):
    a = rt.to_tensor(v)
    same(none_in_one_branch(a), dy2st.to_static(none_in_one_branch)(a))


def test_static_cond_with_none_against_a_tensor_is_refused(static_mode):
    # Paddle 3.3 raises a TypeError here too (Paddle 2.x warned and went on)
    def true_fn():
        return [rt.to_tensor(1), [rt.to_tensor(2), rt.to_tensor(3)]]

    def false_fn():
        return [rt.to_tensor(3), [None, rt.to_tensor(4)]]

    with pytest.raises(ValueError, match="must return the same structure"):
        rt.static.nn.cond(rt.to_tensor(1) < rt.to_tensor(2), true_fn, false_fn)
