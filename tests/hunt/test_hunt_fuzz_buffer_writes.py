"""Found by the fuzzer's ``sublayers`` grammar: a buffer written in place inside a tensor loop or
branch of ``forward`` (``self.ema.add_(v)``) came out right from ``to_static`` but was lost from the
saved model (``prune`` dropped the loop, which lists no output for the buffer its body writes, so the
read after it saw the old value) and from its ONNX export (the If/Loop did not carry the new value,
and an If with no outputs was left out): silent wrong answers, now equal to eager."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


class _Ema(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", rt.zeros([4]))

    def forward(self, x):
        y = x * 0.5 + 0.5
        for _ in x:
            self.ema.add_(y.mean(axis=0).detach() * 0.25)
        if x.mean() > 0:
            self.ema.scale_(0.5)
        return y + self.ema


def _cases():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((b, 4)).astype("float32") + s for b, s in [(3, 0.5), (5, -0.5), (2, 1.0)]]


def test_a_buffer_written_in_a_loop_and_a_branch_of_a_saved_model_matches_eager(tmp_path):
    eager, net = _Ema(), _Ema()
    prefix = str(tmp_path / "m")
    dy2st.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    loaded = dy2st.load(prefix)
    for xv in _cases():  # the state moves on from call to call in both
        np.testing.assert_allclose(loaded(rt.to_tensor(xv)).numpy(), eager(rt.to_tensor(xv)).numpy(), rtol=1e-6)


def test_a_buffer_written_in_a_loop_and_a_branch_exports_to_onnx(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    net = _Ema()
    prefix = str(tmp_path / "m")
    dy2st.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    with pytest.warns(UserWarning, match="hold no state"):
        dy2st.export_onnx(prefix, prefix + ".onnx")
    session = ort.InferenceSession(prefix + ".onnx", providers=["CPUExecutionProvider"])
    for xv in _cases():  # (the ONNX graph starts from the saved state at every run)
        want = _Ema()(rt.to_tensor(xv)).numpy()
        np.testing.assert_allclose(session.run(None, {"x": xv})[0], want, rtol=1e-6)
