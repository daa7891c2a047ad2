"""Activations given a one-element tensor where they take a float (F.leaky_relu(x, t), F.hardtanh(x, -t, t),
rt.stanh(x, t, t), F.elu/celu/selu/softplus/thresholded_relu/hardshrink/softshrink/hardsigmoid): eagerly
the parameter is float(t); converted code reads it when the Program runs, so one cached Program serves
every value, bitwise as eagerly, with x's gradient as eagerly and none into the parameter."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F

CASES = {
    "leaky_relu": lambda x, t, u: F.leaky_relu(x, t),
    "hardtanh": lambda x, t, u: F.hardtanh(x, -t, t) + F.hardtanh(x, min=u - 1.0, max=u),
    "stanh": lambda x, t, u: rt.stanh(x, t, u),
    "elu": lambda x, t, u: F.elu(x, alpha=t),
    "celu": lambda x, t, u: F.celu(x, alpha=t),
    "selu": lambda x, t, u: F.selu(x, scale=u + 1.0, alpha=t),
    "softplus": lambda x, t, u: F.softplus(x, beta=t, threshold=u),
    "thresholded_relu": lambda x, t, u: F.thresholded_relu(x, t, u),
    "hardshrink": lambda x, t, u: F.hardshrink(x, threshold=t),
    "softshrink": lambda x, t, u: F.softshrink(x, threshold=t),
    "hardsigmoid": lambda x, t, u: F.hardsigmoid(x, t, u),
    "clip": lambda x, t, u: rt.clip(x, -t, u),
}
PARAMS = [(0.2, 1.0, "float32"), (1.0, 0.1, "float64"), (0.7, 3.0, "int64"), (3.0, 0.5, "float32"),
          (0.45, 2.5, "float64"), (2.0, 1.0, "int64")]


def _bitwise(eager, static):
    assert str(eager.dtype) == str(static.dtype) and list(eager.shape) == list(static.shape)
    assert eager.numpy().tobytes() == static.numpy().tobytes(), (eager.numpy(), static.numpy())


def _inputs(dt):
    rng = np.random.default_rng(0)
    base = np.array([-3.0, -1.0, -0.2, -0.0, 0.0, 0.2, 0.5, 1.0, 3.0, 25.0], "float64")
    return [rt.to_tensor(base.astype(dt)), rt.to_tensor((rng.standard_normal(10) * 2).astype(dt))]


@pytest.mark.parametrize("name", sorted(CASES))
def test_tensor_parameter_matches_eager_through_one_program(name):
    fn = CASES[name]
    sf, signatures = dy2st.to_static(fn), set()
    for dt in ("float32", "float64"):
        for tv, uv, pdt in PARAMS:
            if pdt == "int64":
                tv, uv = round(tv + 0.5), round(uv)  # whole values, read through float()
            t, u = rt.to_tensor(np.array([tv], pdt)), rt.to_tensor(np.array(uv, pdt))
            for x in _inputs(dt):
                _bitwise(fn(x, t, u), sf(x, t, u))
                signatures.add((dt, tuple(x.shape), pdt))
    assert len(sf.program_cache) == len(signatures)  # one per dtypes, whatever the values
    t, u = rt.to_tensor(np.array([0.3], "float32")), rt.to_tensor(np.array([1.0], "float32"))
    grads = []
    for f in (fn, sf):
        x = _inputs("float32")[0]
        x.stop_gradient = t.stop_gradient = False
        (f(x, t, u) * rt.arange(10, dtype="float32")).sum().backward()
        grads.append((x.grad.numpy().tobytes(), t.grad))
        t.clear_gradient()
        t.stop_gradient = True
    assert grads[0] == grads[1] and grads[0][1] is None  # float() reads: no gradient into t, as eagerly


def test_float16_parameters_round_as_eagerly():
    fn = CASES["hardtanh"]
    sf = dy2st.to_static(lambda x, t, u: (fn(x, t, u), F.leaky_relu(x, t), F.elu(x, t), rt.stanh(x, t, u)))
    for tv in (0.1, 0.3333, 2.7):
        t, u = rt.to_tensor(np.array([tv], "float64")), rt.to_tensor(np.array(tv * 2, "float32"))
        x = rt.to_tensor(np.array([-3.0, -0.3333, 0.1, 0.2, 2.7], "float16"))
        for e, s in zip((fn(x, t, u), F.leaky_relu(x, t), F.elu(x, t), rt.stanh(x, t, u)), sf(x, t, u)):
            _bitwise(e, s)
    assert len(sf.program_cache) == 1


def _in_place(x, t, u):
    y = x * 1.0
    F.leaky_relu_(y, t)
    z = F.hardtanh_(x * 2.0, -t, u)
    return y, z, F.thresholded_relu_(x * 3.0, t, u), F.elu_(x + 0.0, t)


def test_in_place_activations_take_tensor_parameters():
    sf = dy2st.to_static(_in_place)
    for tv, uv in [(0.2, 1.0), (0.5, 3.0), (1.5, 0.25)]:
        t, u = rt.to_tensor(np.array([tv], "float32")), rt.to_tensor(np.array([uv], "float32"))
        x = _inputs("float32")[1]
        for e, s in zip(_in_place(x, t, u), sf(x, t, u)):
            _bitwise(e, s)
    assert len(sf.program_cache) == 1


@pytest.mark.parametrize("fn, value, error", [
    (lambda x, t: F.softshrink(x, threshold=t), -0.5, ValueError),
    (lambda x, t: F.celu(x, alpha=t), 0.0, ZeroDivisionError),
    (lambda x, t: F.selu(x, scale=t), 0.5, ValueError),
    (lambda x, t: F.elu_(x * 1.0, alpha=t), -1.0, AssertionError),
])
def test_parameter_checks_run_when_the_program_runs(fn, value, error):
    sf, x = dy2st.to_static(fn), rt.to_tensor(np.array([1.0, -2.0], "float32"))
    sf(x, rt.to_tensor(np.array([2.0], "float32")))
    bad = rt.to_tensor(np.array([value], "float32"))
    for f in (fn, sf):
        with pytest.raises(error):
            f(x, bad)


def test_several_element_parameter_is_eagers_float_error():
    fn = CASES["hardtanh"]
    x, t = rt.to_tensor(np.array([1.0, -2.0], "float32")), rt.to_tensor(np.array([0.5, 2.0], "float32"))
    for f in (fn, dy2st.to_static(fn)):
        with pytest.raises(TypeError, match=r"float\(\) needs a tensor with one element, got shape \[2\]"):
            f(x, t, t)
