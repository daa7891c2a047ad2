"""The per-call path of a converted Layer: results with each call-path switch off and on are the
same, and the onnxruntime backend's results equal the numpy executor's.

Covers the generated cache-hit call (``dy2st/frontend/fast_call.py``: its outputs are plain
Tensors without a gradient, as the general path's), relu's zeros of the operand's shape in a plan
(``shared_zeros``: bitwise the same values, any batch size, several threads on one plan), a
matrix product written ``x.dot(w)`` (``dot_method``: the same values and errors) and the
onnxruntime runner's per-call function (``ort_run_options``: one RunOptions per runner instead of
None), including calls from several threads at once on one runner.
"""
import threading

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec
from runtime import nn
from runtime.nn import functional as F
from runtime.static import passes
from runtime.static.backends.numpy import numpy_runner


class MLP(nn.Layer):
    def __init__(self, width=16, depth=3):
        super().__init__()
        self.fcs = nn.LayerList([nn.Linear(width, width) for _ in range(depth)])

    def forward(self, x):
        for fc in self.fcs:
            x = F.relu(fc(x))
        return x


class Loop(nn.Layer):
    """A tensor while loop (a Loop node in onnxruntime, a compiled loop on numpy)."""

    def __init__(self, d=8):
        super().__init__()
        self.w = nn.Linear(d, d)

    def forward(self, x, n):
        i = rt.zeros([], "int64")
        while i < n:
            x = rt.tanh(self.w(x))
            i = i + 1
        return x, i



def _in_threads(work, errors, n=4):
    """Run ``work(k)`` for k < n in n threads at once; fail with the first error one reported."""
    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]

def _layer(cls, spec, backend="numpy", state=None):
    rt.seed(3)
    layer = dy2st.to_static(cls(), input_spec=spec, backend=backend)
    if state is not None:
        layer.set_state_dict(state)
    layer.eval()
    return layer


def _arrays(out):
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


MLP_SPEC = [InputSpec([None, 16], "float32", "x")]
LOOP_SPEC = [InputSpec([None, 8], "float32", "x"), InputSpec([], "int64", "n")]


def _inputs(rng, batch):
    return ([rt.to_tensor(rng.normal(size=(batch, 16)).astype("float32"))],
            [rt.to_tensor(rng.normal(size=(batch, 8)).astype("float32")), rt.to_tensor(np.array(5, "int64"))])


def test_cache_hit_outputs_are_plain_tensors_equal_to_eager():
    rng = np.random.default_rng(0)
    eager = MLP()
    eager.eval()
    static = _layer(MLP, MLP_SPEC, state=eager.state_dict())
    x = rt.to_tensor(rng.normal(size=(4, 16)).astype("float32"))
    with rt.no_grad():
        want = eager(x).numpy()
        first = static(x)   # the general path (builds the generated call)
        second = static(x)  # the generated call
    assert static.forward._hit is not None
    for out in (first, second):
        assert type(out) is rt.Tensor and out.stop_gradient and out.grad is None and out._name is None
        np.testing.assert_array_equal(out.numpy(), want)
    assert first.numpy() is not second.numpy()  # each call returns a fresh array


def test_ort_run_options_off_and_on_equal_the_numpy_executor():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    rng = np.random.default_rng(1)
    for cls, spec, k in ((MLP, MLP_SPEC, 0), (Loop, LOOP_SPEC, 1)):
        ref = _layer(cls, spec)
        state = ref.state_dict()
        results = {}
        for flag in (False, True):
            with passes.features(ort_run_options=flag):
                layer = _layer(cls, spec, "onnxruntime", state)
                runner = layer.forward.get_concrete_program(*_inputs(rng, 2)[k]).partial_program.runner
                assert runner.backend == "onnxruntime"
                assert (runner._run_opts is not None) is flag
                with rt.no_grad():
                    results[flag] = [_arrays(layer(*_inputs(np.random.default_rng(b), b)[k])) for b in (1, 3, 3)]
        with rt.no_grad():
            want = [_arrays(ref(*_inputs(np.random.default_rng(b), b)[k])) for b in (1, 3, 3)]
        for got_off, got_on, w in zip(results[False], results[True], want):
            for a, b, c in zip(got_off, got_on, w):
                np.testing.assert_array_equal(a, b)  # the same session, the same arithmetic
                np.testing.assert_allclose(a, c, rtol=2e-5, atol=2e-5)


def test_ort_runner_shared_by_threads():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    ref = _layer(MLP, MLP_SPEC)
    layer = _layer(MLP, MLP_SPEC, "onnxruntime", ref.state_dict())
    xs = [rt.to_tensor(np.random.default_rng(s).normal(size=(s % 3 + 1, 16)).astype("float32")) for s in range(4)]
    with rt.no_grad():
        want = [ref(x).numpy() for x in xs]
        layer(xs[0])
    errors = []

    def work(k):
        try:
            with rt.no_grad():
                for _ in range(50):
                    got = layer(xs[k]).numpy()
                    np.testing.assert_allclose(got, want[k], rtol=2e-5, atol=2e-5)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)
    _in_threads(work, errors)


class Mixed(nn.Layer):
    """relus of three shapes: [-1, 16] twice (one group), [-1, 8] once, a transposed matmul's [16, 16]."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 8)

    def forward(self, x):
        h = F.relu(self.b(F.relu(self.a(x))))
        g = F.relu(rt.matmul(h, h, transpose_x=True) - 0.5)
        return F.relu(self.c(h)), g, F.relu(x)


def _plans(layer, x, switch="shared_zeros"):
    cp = layer.forward.get_concrete_program(x)
    out = {}
    for flag in (False, True):
        with passes.features(**{switch: flag}):
            out[flag] = numpy_runner(cp.main_program, [v.name for v in cp.inputs], [v.name for v in cp.outputs])
    return out


def test_shared_zeros_off_and_on_bitwise_equal():
    for cls, spec in ((MLP, MLP_SPEC), (Mixed, MLP_SPEC)):
        layer = _layer(cls, spec)
        plans = _plans(layer, rt.to_tensor(np.zeros((2, 16), "float32")))
        assert "_Z" not in plans[False].source and "_z" not in plans[False].source
        assert "_Z0[" in plans[True].source  # the [-1, 16] relus share one lookup
        if cls is Mixed:
            assert plans[True].source.count("_Z") == 1  # the [-1, 8] relu alone keeps the 0-d zero
        for batch in (1, 5, 0, 5, 3):
            x = np.random.default_rng(batch).normal(size=(batch, 16)).astype("float32")
            x[:, 0] = np.nan
            want = plans[False](x.copy())
            got = plans[True](x.copy())
            for a, b in zip(want, got):
                assert a.shape == b.shape and a.tobytes() == b.tobytes()
                assert a.flags.writeable and b.flags.writeable  # the read-only zeros are never returned


def test_shared_zeros_known_shape_is_a_constant():
    layer = _layer(MLP, [InputSpec([4, 16], "float32", "x")])
    plans = _plans(layer, rt.to_tensor(np.zeros((4, 16), "float32")))
    assert "_Z" not in plans[True].source and "_z0" in plans[True].source
    x = np.random.default_rng(0).normal(size=(4, 16)).astype("float32")
    assert plans[True](x)[0].tobytes() == plans[False](x)[0].tobytes()


def test_shared_zeros_plan_shared_by_threads():
    layer = _layer(MLP, MLP_SPEC)
    plan = _plans(layer, rt.to_tensor(np.zeros((2, 16), "float32")))[True]
    xs = [np.random.default_rng(s).normal(size=(s % 4 + 1, 16)).astype("float32") for s in range(4)]
    with passes.features(shared_zeros=False):
        ref = _plans(layer, rt.to_tensor(np.zeros((2, 16), "float32")))[False]
    want = [ref(x)[0] for x in xs]
    errors = []

    def work(k):
        try:
            for _ in range(200):
                got = plan(xs[k])[0]
                assert got.tobytes() == want[k].tobytes()
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)
    _in_threads(work, errors)


def test_dot_method_off_and_on_same_values_and_errors():
    layer = _layer(Mixed, MLP_SPEC)
    plans = _plans(layer, rt.to_tensor(np.zeros((2, 16), "float32")), "dot_method")
    assert ".dot(" not in plans[False].source and ".dot(" in plans[True].source
    for batch in (1, 0, 6):
        x = np.random.default_rng(batch).normal(size=(batch, 16)).astype("float32")
        for a, b in zip(plans[False](x), plans[True](x)):
            assert a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
    errors = []
    for flag in (False, True):  # a wrong width reaches the matmul (the plan itself checks no feeds)
        with pytest.raises(ValueError) as info:
            plans[flag](np.zeros((2, 12), "float32"))
        errors.append(str(info.value))
        assert "matmul" in "".join(getattr(info.value, "__notes__", []))  # the failing op is named
    assert errors[0] == errors[1]
