"""Paddle 2.x's StaticFunction surface: bound methods, modes, inputs/outputs, concrete programs,
traced counts, the last used Program, keyword checking and the too-many-Programs warning."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn


def t(a, dtype="float32", stop_gradient=True):
    return rt.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=stop_gradient)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if x.sum() > 0:
            return x * self.k
        return x - self.k


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)

    def score(self, x, scale):
        h = self.fc(x)
        if h.mean() > 0:
            h = h * scale
        return h


def test_to_static_on_bound_method_keeps_self():
    obj = Scaler(3.0)
    sf = dy2st.to_static(obj.apply)
    for seed in range(4):
        x = t(rand(4, seed=seed) + (1.0 if seed % 2 else -1.0))
        np.testing.assert_allclose(sf(x).numpy(), obj.apply(x).numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1
    rt.seed(0)
    net = Net()
    score = dy2st.to_static(net.score)
    for seed in range(3):
        x = t(rand(2, 3, seed=seed) * 3)
        np.testing.assert_allclose(score(x, 2.0).numpy(), net.score(x, 2.0).numpy(), rtol=1e-5)
        x.stop_gradient = False
        score(x, 2.0).sum().backward()
        got = x.grad.numpy().copy()
        x.clear_grad()
        net.score(x, 2.0).sum().backward()
        np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-5)


def test_train_eval_on_a_function_and_on_a_layer_method():
    @dy2st.to_static
    def f(x):
        return x * 2.0

    x = t(rand(3), stop_gradient=False)
    assert f.train() is f and not f(x).stop_gradient
    assert f.eval() is f and f(x).stop_gradient  # inference: no gradient recorded
    net = Net()
    sf = dy2st.to_static(net).forward
    assert sf.train() is sf and net.training  # the Layer's own mode: nothing to switch
    with pytest.raises(RuntimeError, match="Failed to switch eval mode.*Layer.eval"):
        sf.eval()  # Paddle's rule: a Layer's method follows the Layer
    assert net.training is True
    net.eval()
    assert sf.eval() is sf
    with pytest.raises(RuntimeError, match="Failed to switch train mode"):
        sf.train()


def test_inputs_outputs_and_concrete_program_from_declared_input_spec():
    @dy2st.to_static(input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    def f(x):
        return x.sum(axis=1), x * 2.0

    cp = f.concrete_program  # built from the declared spec, no call needed
    assert [v.name for v in cp.inputs] == ["x"] and cp.inputs[0].shape == [-1, 3]
    assert f.inputs == cp.inputs and f.outputs == cp.outputs and len(f.outputs) == 2
    assert f.get_traced_count() == 1


def test_get_concrete_program_with_input_specs_mixed_with_python_values():
    @dy2st.to_static
    def f(x, k, double=False):
        y = x * k
        if double:
            y = y * 2.0
        return y

    a = f.get_concrete_program(dy2st.InputSpec([None, 2], "float32", "x"), 3.0, double=True)
    b = f.get_concrete_program(dy2st.InputSpec([None, 2], "float32", "x"), 3.0, double=False)
    assert a is not b and f.get_traced_count() == 2
    exe = rt.static.Executor()
    xv = rand(5, 2)
    out_a = exe.run(a.main_program, feed={"x": xv}, fetch_list=a.outputs)[0]
    out_b = exe.run(b.main_program, feed={"x": xv}, fetch_list=b.outputs)[0]
    np.testing.assert_allclose(out_a, xv * 6.0, rtol=1e-6)
    np.testing.assert_allclose(out_b, xv * 3.0, rtol=1e-6)
    assert f.get_concrete_program(dy2st.InputSpec([None, 2], "float32", "x"), 3.0, double=True) is a


def test_program_cache_last_is_the_last_used():
    @dy2st.to_static
    def f(x):
        return x + 1.0

    f(t(rand(2)))
    first = f.program_cache.last()
    f(t(rand(3)))
    second = f.program_cache.last()
    assert first is not second
    f(t(rand(2)))
    assert f.program_cache.last() is first and f.concrete_program is first


def test_unknown_keywords_are_type_errors(tmp_path):
    with pytest.raises(TypeError):
        dy2st.to_static(lambda x: x, anything=1)
    with pytest.raises(TypeError):
        dy2st.save(Net(), str(tmp_path / "m"), input_spec=[dy2st.InputSpec([None, 3])], bogus=True)
    dy2st.save(Net(), str(tmp_path / "m"), input_spec=[dy2st.InputSpec([None, 3])])
    with pytest.raises(TypeError):
        dy2st.load(str(tmp_path / "m"), anything=1)
    with pytest.raises(ValueError):
        dy2st.to_static(lambda x: x, backend="tpu")
    sf = dy2st.to_static(lambda x: x, backend="onnxruntime")
    assert sf._backend == "onnxruntime"


def test_many_programs_warn_once_saying_why():
    @dy2st.to_static
    def f(x):
        return x * 2.0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 14):
            np.testing.assert_allclose(f(t(rand(n))).numpy(), rand(n) * 2.0, rtol=1e-6)
    msgs = [str(w.message) for w in caught if "Programs" in str(w.message)]
    assert len(msgs) == 1
    assert "shapes" in msgs[0] and "input_spec" in msgs[0] and "None" in msgs[0]
    assert f.get_traced_count() == 13
