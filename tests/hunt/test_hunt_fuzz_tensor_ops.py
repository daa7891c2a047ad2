"""Found by the fuzzer's ``tensor_ops`` grammar: ``rt.split(y, [3, -1], axis=1)`` of a dim known
only at run time (after a reshape through ``y.shape``, or an input declared ``None``) was refused by
the ONNX exporter ("split of an unknown-size dim into sections"); the pieces are slices, the ``-1``
one between those before it (from the start) and those after it (from the end)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _splits(x):
    a, b = rt.split(x, [3, -1], axis=1)
    c, d, e = rt.split(x, [1, -1, 2], axis=1)
    f, g = rt.split(x, [-1, 2], axis=1)
    return rt.concat([b * 2.0, a], axis=1), d.sum(axis=1) + c[:, 0] + e.mean(axis=1), f * 0.5, g


def test_split_with_a_minus_one_section_of_an_unknown_dim_exports_to_onnx(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    prefix = str(tmp_path / "m")
    dy2st.save(dy2st.to_static(_splits), prefix, input_spec=[InputSpec([None, None], "float32", "x")])
    dy2st.export_onnx(prefix, prefix + ".onnx")
    session = ort.InferenceSession(prefix + ".onnx", providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for shape in [(2, 6), (3, 5), (1, 9)]:
        x = rng.standard_normal(shape).astype("float32")
        want = [w.numpy() for w in _splits(rt.to_tensor(x))]
        got = session.run(None, {"x": x})
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
