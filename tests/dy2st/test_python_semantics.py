"""Converted code keeps eager/Python semantics: gradient cuts, untaken-branch parameters, `or`/`and`
operands, isinstance, raise/try, decorators, private names and lambdas in dicts.

Each case runs the converted function and the original eagerly on several inputs and compares
values and gradients (the first case is the one that came out 7 where eager gives 4).
"""
import functools
import math

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn


def t(a, dtype="float32", stop_gradient=True):
    return rt.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=stop_gradient)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def check(fn, *arrays, grads=True):
    """Values and input gradients of dy2st.to_static(fn) against fn run eagerly."""
    sf = dy2st.to_static(fn)
    for scale in (1.0, -1.5, 3.0):
        xs_s = [t(a * scale, stop_gradient=False) for a in arrays]
        xs_e = [t(a * scale, stop_gradient=False) for a in arrays]
        got, want = sf(*xs_s), fn(*xs_e)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
        if grads and not want.stop_gradient:
            got.sum().backward()
            want.sum().backward()
            for a, b in zip(xs_s, xs_e):
                assert (a.grad is None) == (b.grad is None)
                if b.grad is not None:
                    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)
    return sf


def with_no_grad(x):
    y = x * 3.0
    with rt.no_grad():
        z = x * 5.0
    return y + z + x


def with_stop_gradient(x):
    y = x * 3.0
    z = x * 5.0
    z.stop_gradient = True
    return y + z + x


@rt.no_grad()
def times_five(x):
    return x * 5.0


def with_no_grad_helper(x):
    return x * 3.0 + times_five(x) + x


def with_detach(x):
    return x * 3.0 + (x * 5.0).detach() + x


@pytest.mark.parametrize("fn", [with_no_grad, with_stop_gradient, with_no_grad_helper, with_detach])
def test_gradient_cuts_equal_eager(fn):
    sf = check(fn, np.array([1.0, 2.0], "float32"))
    x = t([1.0], stop_gradient=False)
    sf(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0])  # not 9: the x * 5 path is cut
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "stop_gradient" in ops


def test_first_call_under_no_grad_still_trains_later():
    sf = dy2st.to_static(lambda x: x * 2.0)
    with rt.no_grad():
        sf(t([1.0]))
    x = t([1.0], stop_gradient=False)
    sf(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0])


class TwoHeads(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)

    def forward(self, x):
        if x.sum() > 0:
            y = self.a(x)
        else:
            y = self.b(x)
        return y


def test_parameters_of_the_untaken_branch_get_no_gradient():
    rt.seed(0)
    eager = TwoHeads()
    static = dy2st.to_static(TwoHeads())
    static.set_state_dict(eager.state_dict())
    for v in ([1.0, 2.0], [-1.0, -2.0], [3.0, -1.0]):
        for m in (eager, static):
            m.clear_gradients()
            m(t([v])).sum().backward()
        for (name, p), q in zip(eager.named_parameters(), static.parameters()):
            assert (p.grad is None) == (q.grad is None), name
            if p.grad is not None:
                np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5)


def value_or_fallback(x):
    a = x.sum() * 0.0
    b = x.mean()
    return (a or b) + (b and a * 2.0 + 1.0)


def test_or_and_on_non_bool_tensors_return_an_operand():
    check(value_or_fallback, np.array([1.0, 2.0], "float32"))
    check(value_or_fallback, np.array([0.0, 0.0], "float32"))


def double_tensors(x):
    return x * 2.0 if isinstance(x, rt.Tensor) else x


def test_isinstance_tensor_is_true_for_traced_values():
    check(double_tensors, np.array([1.0, -2.0], "float32"))


def checked(x):
    if x.sum() > 100.0:
        raise ValueError("too big")
    return x + 1.0


def test_raise_under_tensor_condition_is_a_run_time_check():
    sf = check(checked, np.array([1.0, 2.0], "float32"))
    assert "assert" in [op.type for op in sf.concrete_program.main_program.global_block().ops]
    with pytest.raises(Exception, match="too big"):
        sf(t([200.0, 1.0]))
    np.testing.assert_allclose(sf(t([1.0])).numpy(), [2.0])  # the same Program still serves


TABLE = {}


def python_lookup(x):
    try:
        k = TABLE["k"]
    except KeyError:
        k = 2.0
    return x * k


def tensor_try(x):
    try:
        y = math.sqrt(float(x))  # math needs a real number, which a traced value has only at run time
    except TypeError:
        y = 0.0
    return x + y


def test_try_except_python_values_work_and_tensor_code_is_refused():
    x = t([1.0, 2.0])
    np.testing.assert_allclose(dy2st.to_static(python_lookup)(x).numpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match="try/except"):
        dy2st.to_static(tensor_try)(t([3.0]))


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2.0
    return wrapper


@doubled
def branchy(x):
    if x.sum() > 0:
        return x + 1.0
    return x - 1.0


def calls_branchy(x):
    return branchy(x) + 1.0


@pytest.mark.parametrize("fn", [branchy, calls_branchy])
def test_functools_wraps_decorators_keep_their_behaviour(fn):
    sf = check(fn, np.array([1.0, 2.0], "float32"))
    assert "cond" in [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]


class Private(nn.Layer):
    def __init__(self):
        super().__init__()
        self.__scale = 3.0

    def forward(self, x):
        if x.sum() > 0:
            return x * self.__scale
        return x


def test_name_mangled_attributes():
    net = Private()
    sf = dy2st.to_static(Private())
    for v in ([1.0], [-2.0]):
        np.testing.assert_allclose(sf(t(v)).numpy(), net(t(v)).numpy())


def lambdas_in_dict(x):
    ops = {"a": lambda v: v * 2.0, "b": lambda v: v + 1.0}
    if x.sum() > 0:
        return ops["a"](x)
    return ops["b"](x)


def test_lambdas_as_dict_values():
    check(lambdas_in_dict, np.array([1.0, 2.0], "float32"))


def count_down(x, n):
    s = x * 0.0
    for i in range(n, 0, -1):
        s = s + i * x
    return s


def count_down_by_two(x, n):
    s = x * 0.0
    for i in range(n, 0, -2):
        s = s * 2.0 + i
    return s


@pytest.mark.parametrize("fn", [count_down, count_down_by_two])
def test_reverse_range_with_tensor_bound(fn):
    sf = dy2st.to_static(fn)
    x = t([1.5, -2.0])
    for n in (0, 1, 4, 7):
        np.testing.assert_allclose(sf(x, t(n, "int64")).numpy(), fn(x, t(n, "int64")).numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1
    assert "while" in [op.type for op in sf.concrete_program.main_program.global_block().ops]


def first_above(x):
    i = 0
    while True:
        x = x + 1.0
        if x.sum() > 5.0:
            return x * 2.0
        i += 1


def test_while_true_left_through_a_return_under_tensor_condition():
    check(first_above, np.array([1.0], "float32"))
    check(first_above, np.array([7.0, -1.0], "float32"))


def last_three(x):
    y = x[-3:]
    return y.sum() + y.shape[0]


def test_negative_slice_of_unknown_dim_has_unknown_size():
    sf = dy2st.to_static(last_three, input_spec=[dy2st.InputSpec([None], "float32")])
    for n in (1, 2, 3, 5):
        x = t(np.arange(n, dtype="float32"))
        np.testing.assert_allclose(sf(x).numpy(), last_three(x).numpy())
    assert len(sf.program_cache) == 1


def checked_after_work(x):
    y = x * 2.0
    if y.sum() > 100.0:
        y = y + 1.0
        raise ValueError("y too big")
    return y


def test_raise_after_other_statements_under_tensor_condition():
    sf = check(checked_after_work, np.array([1.0, 2.0], "float32"))
    with pytest.raises(Exception, match="y too big"):
        sf(t([200.0]))


def int_carried_through_loop(x, n):
    k = 1
    i = 0
    s = x * 0.0
    while i < n:
        k = k + 2
        s = s + x * (k / 2)  # true division inside the loop...
        i += 1
    return s + k / 2 + (k * 3) // 2 / 4  # ...and after it


def loop_index_divided(x, n):
    s = x * 0.0
    for i in range(n):
        s = s + x * (i / 2) + (7 / (i + 1))
    return s


@pytest.mark.parametrize("fn", [int_carried_through_loop, loop_index_divided])
def test_python_int_in_tensor_loop_keeps_true_division(fn):
    sf = dy2st.to_static(fn)
    x = t([1.0, -2.0])
    for n in (0, 1, 2, 5):
        np.testing.assert_allclose(sf(x, t(n, "int64")).numpy(), fn(x, t(n, "int64")).numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1
    int_tensor = t(7, "int64")  # a genuine int tensor keeps the runtime's own `/`
    np.testing.assert_allclose(dy2st.to_static(lambda v: v / 2)(int_tensor).numpy(), (int_tensor / 2).numpy())
