"""`rt.roll` along a run-time (None) dim gathers at `(i - shift) mod n`; with an empty batch (n = 0,
which eager rolls to an empty tensor) the converted function, the saved model and the onnxruntime
backend raised "integer division by zero". The index is now taken mod max(n, 1)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec


def rolled(x):
    return rt.roll(x, 1, 0), rt.roll(x, -2), rt.roll(x, [2, 1], [0, 1]) * 2.0


SPEC = [InputSpec([None, 3], "float32", "x")]


def _check(outs, x):
    wants = rolled(rt.to_tensor(x))
    assert len(outs) == len(wants)
    for got, want in zip(outs, wants):
        np.testing.assert_array_equal(np.asarray(got), want.numpy())
        assert np.asarray(got).shape == tuple(want.shape)


def _cases():
    return [np.arange(3 * n, dtype="float32").reshape(n, 3) for n in (0, 1, 4)]


def test_converted_and_loaded_roll_over_an_empty_batch(tmp_path):
    fn = dy2st.to_static(rolled, input_spec=SPEC)
    path = str(tmp_path / "roll")
    dy2st.save(fn, path)
    loaded = dy2st.load(path)
    for x in _cases():
        _check([t.numpy() for t in fn(rt.to_tensor(x))], x)
        _check([t.numpy() for t in loaded(rt.to_tensor(x))], x)


def test_roll_gradient_over_a_runtime_dim():
    fn = dy2st.to_static(rolled, input_spec=SPEC)
    for x in _cases():
        grads = []
        for f in (rolled, fn):
            t = rt.to_tensor(x, stop_gradient=False)
            outs = f(t)
            (outs[0] * rt.arange(3, dtype="float32") + outs[2]).sum().backward()
            grads.append(t.grad.numpy())
        np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("opset", [11, 17])
def test_exported_roll_over_an_empty_batch(tmp_path, opset):
    ort = pytest.importorskip("onnxruntime")
    path = str(tmp_path / "roll")
    dy2st.onnx.export(dy2st.to_static(rolled), path, input_spec=SPEC, opset_version=opset)
    session = ort.InferenceSession(path + ".onnx")
    for x in _cases():
        _check(session.run(None, {"x": x}), x)
