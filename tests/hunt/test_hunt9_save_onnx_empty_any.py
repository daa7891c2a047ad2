"""`any()` of an empty tensor is False (numpy's, the kernel's); the ONNX lowering took ReduceMax of
the values as int32, which onnxruntime answers with the lowest int32 for an empty slice, so `any`
over an empty batch came out True in the export and on the onnxruntime backend."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec

ort = pytest.importorskip("onnxruntime")


def flags(x):
    return ((x > 0.5).all(0), (x > 0.5).any(0), rt.all(x > 0.5), rt.any(x > 0.5),
            rt.any(x > 0.5, axis=1, keepdim=True), rt.all(x > 0.5, axis=1))


CASES = [np.zeros((0, 3), "float32"), np.array([[0.9, 0.1, 0.7]], "float32"),
         np.array([[0.9, 0.6, 0.7], [0.2, 0.1, 0.8]], "float32")]


def _check(got, x):
    wants = flags(rt.to_tensor(x))
    assert len(got) == len(wants)
    for g, w in zip(got, wants):
        np.testing.assert_array_equal(np.asarray(g), w.numpy())
        assert np.asarray(g).dtype == np.bool_


@pytest.mark.parametrize("opset", [11, 17])
def test_exported_any_and_all_of_an_empty_batch(tmp_path, opset):
    path = str(tmp_path / "flags")
    dy2st.onnx.export(dy2st.to_static(flags), path, input_spec=[InputSpec([None, 3], "float32", "x")],
                      opset_version=opset)
    session = ort.InferenceSession(path + ".onnx")
    for x in CASES:
        _check(session.run(None, {"x": x}), x)


def test_the_onnxruntime_backend_gives_the_kernels_flags(tmp_path):
    path = str(tmp_path / "flags")
    dy2st.save(dy2st.to_static(flags), path, input_spec=[InputSpec([None, 3], "float32", "x")])
    loaded = dy2st.load(path, backend="onnxruntime")
    for x in CASES:
        _check([t.numpy() for t in loaded(rt.to_tensor(x))], x)
