"""Names and behaviours Paddle's own dy2st tests (test_assert .. test_declarative) reach for:
``paddle.base``/``paddle.fluid`` helpers, ``framework.use_pir_api``, deepcopy of a converted plain
function, ``concrete_program`` before any call, InputSpec calls that spell out default values, and
a converted function whose outputs are all constants."""
import copy

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base, fluid
from runtime.static import InputSpec

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


def _halve(x, flag=False):
    if flag:
        return x * 2.0
    return x / 2.0


def test_deepcopy_of_a_converted_function_gives_the_python_function():
    sf = dy2st.to_static(_halve)
    x = rt.to_tensor(arr(3, 4))
    out = sf(x)
    twin = copy.deepcopy(sf)
    assert twin is _halve and not isinstance(twin, dy2st.StaticFunction)
    np.testing.assert_array_equal(twin(x).numpy(), out.numpy())
    # a converted Layer still copies to a converted Layer of its own
    net = dy2st.to_static(rt.nn.Linear(4, 2))
    net_copy = copy.deepcopy(net)
    assert isinstance(net_copy.forward, dy2st.StaticFunction) and net_copy.forward.class_instance is net_copy


def _add(a, b, c=1, d=2):
    return a + b * c + d


def test_concrete_program_before_any_call_is_a_value_error():
    sf = dy2st.to_static(_add)
    with pytest.raises(ValueError, match="no Program has been built yet"):
        _ = sf.concrete_program
    sf(rt.to_tensor(arr(2)), rt.to_tensor(arr(2, seed=1)))
    assert sf.concrete_program is sf.program_cache.last()


def test_get_concrete_program_unifies_spelled_out_defaults():
    sf = dy2st.to_static(_add)
    p1 = sf.get_concrete_program(InputSpec([None, 3]), InputSpec([3]))
    assert sf.get_concrete_program(InputSpec([None, 3]), InputSpec([3]), 1, 2) is p1
    assert sf.get_concrete_program(InputSpec([None, 3]), InputSpec([3]), d=2) is p1
    assert len(sf.program_cache) == 1
    p3 = sf.get_concrete_program(InputSpec([None, 3]), InputSpec([3]), c=3)
    assert p3 is not p1 and len(sf.program_cache) == 2
    # the Program of the spelled-out defaults computes what eager does with them
    a, b = arr(2, 3), arr(3, seed=3)
    out = rt.static.Executor().run(p3.main_program, feed={v.name: x for v, x in zip(p3.inputs, (a, b))},
                                   fetch_list=p3.outputs)[0]
    np.testing.assert_allclose(out, _add(rt.to_tensor(a), rt.to_tensor(b), 3).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="do not fit its parameters"):
        sf.get_concrete_program(InputSpec([3]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'e'"):
        sf.get_concrete_program(InputSpec([3]), InputSpec([3]), e=4)


def _constants_only(n):
    a = rt.to_tensor(n)
    return rt.add(rt.to_tensor(3), a), a * 2, rt.to_tensor(2.5) + 1


@pytest.mark.parametrize("n", [3, -4])
def test_outputs_folded_to_constants_are_arrays_like_eager(n):
    sf = check(_constants_only, (n,))
    for t in sf(n):
        assert isinstance(t._value, np.ndarray) and t.shape == []
        np.testing.assert_allclose(np.asarray(t), t.numpy())


def test_paddle_batch_groups_a_sample_reader():
    def samples():
        yield from (np.full(2, i, "float32") for i in range(5))

    batched = rt.batch(samples, 2)
    groups = list(batched())
    assert [len(g) for g in groups] == [2, 2, 1]
    assert [len(g) for g in rt.batch(samples, batch_size=2, drop_last=True)()] == [2, 2]
    assert [float(g[0][0]) for g in batched()] == [0.0, 2.0, 4.0]  # the reader starts over each call
    with pytest.raises(ValueError, match="batch_size"):
        rt.batch(samples, 0)
    # a batch fed to a converted function as a stacked Tensor, as Paddle's CycleGAN test does
    check(lambda_free_mean, (np.stack(groups[0]),), (np.stack(groups[1]),))


def lambda_free_mean(x):
    return rt.mean(x * 2.0, axis=0)


def _relu_then_branch(x):
    y = rt.nn.functional.relu(x) * 2.0
    if y.sum() > 3.0:
        y = y - 1.0
    return y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dygraph_to_static_func_builds_into_the_current_static_program(seed):
    from runtime.fluid.dygraph import to_variable  # the Paddle 2.x import paths
    from runtime.fluid.dygraph.base import to_variable as base_to_variable
    assert to_variable is base_to_variable is fluid.dygraph.base.to_variable

    a = arr(2, 3, seed=seed)
    legacy = dy2st.dygraph_to_static_func(_relu_then_branch)
    eager = legacy(rt.to_tensor(a))  # dynamic mode: the Python function as written
    np.testing.assert_array_equal(eager.numpy(), _relu_then_branch(rt.to_tensor(a)).numpy())
    rt.enable_static()
    try:
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            out = legacy(rt.assign(a))
        assert isinstance(out, rt.static.Variable)
        assert "cond" in {op.type for op in main.global_block().ops}
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        res = exe.run(main, fetch_list=out)[0]
    finally:
        rt.disable_static()
    np.testing.assert_array_equal(res, eager.numpy())


def test_base_core_build_queries_say_numpy_on_the_cpu():
    for core in (base.core, fluid.core):
        assert core.is_compiled_with_cuda() is rt.is_compiled_with_cuda() is False
        assert not (core.is_compiled_with_rocm() or core.is_compiled_with_xpu() or core.is_compiled_with_mkldnn()
                    or core.is_compiled_with_custom_device("npu"))
        assert core.CPUPlace() == rt.CPUPlace()


def test_saved_files_use_the_suffixes_paddle_code_imports(tmp_path):
    from dy2st.translated_layer import INFER_MODEL_SUFFIX, INFER_PARAMS_INFO_SUFFIX, INFER_PARAMS_SUFFIX
    from runtime.static import io as static_io

    rt.seed(2)
    net = rt.nn.Linear(3, 2)
    prefix = str(tmp_path / "lin")
    dy2st.save(net, prefix, input_spec=[InputSpec([None, 3])])
    for suffix in (INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX, INFER_PARAMS_INFO_SUFFIX):
        assert (tmp_path / ("lin" + suffix)).is_file()
    x = arr(4, 3)
    rt.enable_static()
    try:
        exe = rt.static.Executor()
        program, feeds, fetches = static_io.load_inference_model(prefix, exe)
        out = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0]
    finally:
        rt.disable_static()
    np.testing.assert_allclose(out, net(rt.to_tensor(x)).numpy(), rtol=1e-6)


def test_program_translator_switches_the_same_flag_as_enable_to_static():
    pt = dy2st.ProgramTranslator()
    assert pt is dy2st.ProgramTranslator.get_instance() and pt.enable_to_static is True
    sf = dy2st.to_static(_halve)
    x = rt.to_tensor(arr(2, 2))
    try:
        pt.enable(False)
        assert pt.enable_to_static is False
        np.testing.assert_array_equal(sf(x).numpy(), _halve(x).numpy())
        assert len(sf.program_cache) == 0  # ran eagerly
        dy2st.enable_to_static(True)
        assert pt.enable_to_static is True
        np.testing.assert_array_equal(sf(x).numpy(), _halve(x).numpy())
        assert len(sf.program_cache) == 1
        with pytest.raises(TypeError, match="must be a bool"):
            pt.enable(1)
    finally:
        dy2st.enable_to_static(True)


def _branchy(x):
    if x.shape[0] > 1:
        x = x + 1
    return x


def test_not_to_static_takes_paddles_spellings():
    marked = dy2st.not_to_static(func=_branchy)
    assert marked is _branchy

    @dy2st.not_to_static()
    def inner(x):
        return x * 3

    def outer(x):
        return inner(_branchy(x))

    check(outer, (arr(3, 2),), (arr(1, 2, seed=4),))
    assert "x.shape[0] > 1" in dy2st.to_static(_branchy).code


class _TwoArgs(rt.nn.Layer):
    def add(self, x, y):
        return x + y


def test_input_spec_longer_than_the_arguments_is_refused():
    net = _TwoArgs()
    three = [InputSpec([-1, 3]), InputSpec([-1, 3]), InputSpec([3])]
    with pytest.raises(ValueError, match="input_spec has 3 entries but the function takes 2"):
        dy2st.to_static(net.add, input_spec=three)
    with pytest.raises(ValueError, match="takes 4 positional"):
        dy2st.to_static(_add, input_spec=three + three[:2])
    # as many specs as arguments, or fewer (defaults fill the rest), still convert
    x, y = arr(2, 3), arr(2, 3, seed=1)
    out = dy2st.to_static(net.add, input_spec=three[:2])(rt.to_tensor(x), rt.to_tensor(y))
    np.testing.assert_array_equal(out.numpy(), net.add(rt.to_tensor(x), rt.to_tensor(y)).numpy())
    sf = dy2st.to_static(_add, input_spec=three[:2])
    np.testing.assert_allclose(sf(rt.to_tensor(x), rt.to_tensor(y)).numpy(), x + y + 2, rtol=1e-6)


class _SpecNet(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)

    @dy2st.to_static(input_spec=[InputSpec([None, 3])])
    def forward(self, x, scale=1.0):
        return self.fc(x) * scale


def test_unknown_keyword_beside_an_input_spec_is_both_type_and_value_error():
    rt.seed(4)
    net = _SpecNet()
    x = rt.to_tensor(arr(2, 3))
    with pytest.raises(TypeError, match="unexpected keyword argument 'bias'"):
        net(x, scale=2.0, bias=1)
    with pytest.raises(ValueError, match="do not fit its parameters"):
        net(x, bias=1)
    out = net(x, scale=2.0)  # known keywords still convert, eager-exact
    dy2st.enable_to_static(False)
    try:
        np.testing.assert_array_equal(out.numpy(), net(x, scale=2.0).numpy())
    finally:
        dy2st.enable_to_static(True)
