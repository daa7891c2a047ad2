"""bool `+`, `*`, maximum and minimum (numpy's logical or/and) export to ONNX, whose Add/Mul/Max/Min
take no bool: the exported model loads in onnxruntime and gives the Program's values."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec

ort = pytest.importorskip("onnxruntime")


def _bools(a, b):
    return a + b, a * b, rt.maximum(a, b), rt.minimum(a, b)


@pytest.mark.parametrize("opset", [11, 17])
def test_bool_arithmetic_exports(tmp_path, opset):
    spec = [InputSpec([None], "bool"), InputSpec([None], "bool")]
    dy2st.onnx.export(_bools, str(tmp_path / "m"), input_spec=spec, opset_version=opset)
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    names = [i.name for i in sess.get_inputs()]
    for got, want in zip(sess.run(None, dict(zip(names, (a, b)))), _bools(rt.to_tensor(a), rt.to_tensor(b))):
        assert got.dtype == want.numpy().dtype
        np.testing.assert_array_equal(got, want.numpy())
