"""Names and behaviours Paddle's own dy2st tests (test_assert .. test_declarative) reach for:
``paddle.base``/``paddle.fluid`` helpers, ``framework.use_pir_api``, deepcopy of a converted plain
function, ``concrete_program`` before any call, InputSpec calls that spell out default values, and
a converted function whose outputs are all constants."""

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base, fluid

from .helpers import arr, check


def test_base_dygraph_to_variable_keeps_numpy_dtype_and_returns_tensors_as_given():
    for a in (np.arange(4, dtype="int32"), arr(2, 3), np.array([True, False])):
        t = base.dygraph.to_variable(a)
        assert rt.is_tensor(t) and t.dtype == str(a.dtype)
        np.testing.assert_array_equal(t.numpy(), a)
    t = rt.to_tensor([1.0, 2.0])
    assert base.dygraph.to_variable(t) is t
    assert base.dygraph.to_variable(np.ones(2), dtype="float32").dtype == "float32"
    with pytest.raises(TypeError, match="to_variable"):
        base.dygraph.to_variable("abc")
    assert fluid.dygraph.to_variable is base.dygraph.to_variable and fluid.CPUPlace is base.CPUPlace


def test_dygraph_guard_runs_eagerly_inside_static_mode_and_restores_it():
    rt.enable_static()
    try:
        with base.dygraph.guard(base.CPUPlace()):
            assert rt.in_dynamic_mode()
            assert float(rt.to_tensor(2.0) * 3) == 6.0
        assert not rt.in_dynamic_mode()
    finally:
        rt.disable_static()
    with fluid.dygraph.guard():
        assert rt.in_dynamic_mode()
    assert rt.in_dynamic_mode()


def _loops_on_converted_input(x):
    x = base.dygraph.to_variable(x)
    i = rt.zeros([1], dtype="int32")
    while i < 6:
        i += 1
        if i > 3:
            continue
        x += i
    return x


def test_to_variable_inside_converted_loops_matches_eager():
    check(_loops_on_converted_input, (np.zeros(1, "int64"),), (np.array([5], "int64"),))
    check(_loops_on_converted_input, (arr(3),), (arr(3, seed=2),), grad=True)


def test_use_pir_api_says_legacy_programs():
    assert rt.framework.use_pir_api() is False
    net = dy2st.to_static(rt.nn.Linear(3, 2))
    net(rt.to_tensor(arr(2, 3)))
    ops = net.forward.concrete_program.main_program.global_block().ops
    assert all(isinstance(op.type, str) for op in ops) and ops


def _constants_only(n):
    a = rt.to_tensor(n)
    return rt.add(rt.to_tensor(3), a), a * 2, rt.to_tensor(2.5) + 1


@pytest.mark.parametrize("n", [3, -4])
def test_outputs_folded_to_constants_are_arrays_like_eager(n):
    sf = check(_constants_only, (n,))
    for t in sf(n):
        assert isinstance(t._value, np.ndarray) and t.shape == []
        np.testing.assert_allclose(np.asarray(t), t.numpy())
