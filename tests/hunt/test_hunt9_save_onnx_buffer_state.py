"""A forward that updates a buffer (`self.steps = self.steps + 1`) exported to ONNX: the graph has
no state, so every run reads the buffer as exported (`x * 1` on each call, where the Layer and the
saved model give `x * 1`, `x * 2`, ...), and the export said nothing. It now warns, naming the
buffers; a forward that writes none exports without that warning."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec

ort = pytest.importorskip("onnxruntime")


class Counter(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", rt.zeros([1]))
        self.register_buffer("scale", rt.ones([1]) * 3.0)

    def forward(self, x):
        self.steps = self.steps + 1
        return x * self.steps * self.scale


class Reader(Counter):
    def forward(self, x):
        return x * self.steps + self.scale


def test_exporting_a_buffer_update_warns(tmp_path):
    path = str(tmp_path / "c")
    with pytest.warns(UserWarning, match=r"hold no state.*steps") as record:
        dy2st.onnx.export(Counter(), path, input_spec=[InputSpec([None], "float32", "x")])
    assert any(r.filename == __file__ for r in record)
    assert not any("scale" in str(r.message) for r in record)
    session = ort.InferenceSession(path + ".onnx")
    x = np.arange(3, dtype="float32")
    for _ in range(2):  # what the warning says: the saved state at every run
        np.testing.assert_allclose(session.run(None, {"x": x})[0], x * 3.0)


def test_reading_buffers_exports_without_warning(tmp_path):
    path = str(tmp_path / "r")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dy2st.onnx.export(Reader(), path, input_spec=[InputSpec([None], "float32", "x")])
    x = np.arange(3, dtype="float32")
    np.testing.assert_allclose(ort.InferenceSession(path + ".onnx").run(None, {"x": x})[0], x * 0 + 3.0)
