"""`x.squeeze(0)` on a run-time (None) batch dim drops it only when it is 1 (Paddle's squeeze keeps a
dim of another size). The ONNX lowering made a Squeeze node, which fails for a batch of 2
("Dimension of input 0 must be 1"). The exported graph now squeezes as eager does (the Program's
check that such a dim is 1, see test_hunt9_save_squeeze_unknown_dim, is left out with a warning),
and the onnxruntime backend, which runs Programs with checks on numpy, matches the numpy one."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec

ort = pytest.importorskip("onnxruntime")


def squeezed(x):
    return x.squeeze(0) * 2.0, rt.squeeze(x, [0, 2]) + 1.0


SPEC = [InputSpec([None, 3, None], "float32", "x")]


def _cases():
    rng = np.random.default_rng(0)
    return [rng.normal(size=shape).astype("float32") for shape in ((1, 3, 1), (2, 3, 1), (1, 3, 4), (2, 3, 2))]


def _check(outs, x):
    wants = squeezed(rt.to_tensor(x))
    assert len(outs) == len(wants)
    for got, want in zip(outs, wants):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-6)
        assert np.asarray(got).shape == tuple(want.shape)


@pytest.mark.parametrize("opset", [11, 17])
def test_exported_squeeze_of_runtime_dims(tmp_path, opset):
    path = str(tmp_path / "sq")
    with pytest.warns(UserWarning, match="run-time check"):
        dy2st.onnx.export(dy2st.to_static(squeezed), path, input_spec=SPEC, opset_version=opset)
    session = ort.InferenceSession(path + ".onnx")
    for x in _cases():
        _check(session.run(None, {"x": x}), x)


def test_the_onnxruntime_backend_squeezes_as_numpy(tmp_path):
    path = str(tmp_path / "sq")
    dy2st.save(dy2st.to_static(squeezed), path, input_spec=SPEC)
    for backend in ("numpy", "onnxruntime"):
        loaded = dy2st.load(path, backend=backend)
        for x in _cases():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # (onnxruntime: runs checks on numpy)
                if x.shape[0] == 1 and x.shape[2] == 1:
                    _check([t.numpy() for t in loaded(rt.to_tensor(x))], x)
                else:
                    with pytest.raises(ValueError, match="squeeze"):
                        loaded(rt.to_tensor(x))
