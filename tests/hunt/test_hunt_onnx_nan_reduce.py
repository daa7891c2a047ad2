"""max/min/amax/amin reductions of a float tensor holding NaN: the kernels return NaN for the slice
(numpy's max/min, as Paddle's), onnxruntime's ReduceMax/ReduceMin skip it; the onnxruntime backend
and the ONNX export must give the kernels' NaN, not the largest other value."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec

ort = pytest.importorskip("onnxruntime")

X = np.array([[1.0, np.nan, 0.0], [2.0, 5.0, -np.inf]], "float32")


def _reductions(x):
    return (rt.max(x), rt.min(x, axis=0), rt.amax(x, axis=1, keepdim=True), rt.amin(x, axis=-1),
            rt.max(x.astype("float64"), axis=1))


def _check(outs):
    wants = _reductions(rt.to_tensor(X))
    assert len(outs) == len(wants)
    for got, want in zip(outs, wants):
        assert got.dtype == want.numpy().dtype
        np.testing.assert_array_equal(got, want.numpy())
    assert np.isnan(outs[0])  # the whole-tensor max is NaN, not 5


def test_nan_reductions_on_the_onnxruntime_backend():
    sf = dy2st.to_static(_reductions, backend="onnxruntime")
    _check([o.numpy() for o in sf(rt.to_tensor(X))])


@pytest.mark.parametrize("opset", [13, 18])
def test_nan_reductions_exported(tmp_path, opset):
    dy2st.onnx.export(_reductions, str(tmp_path / "m"), input_spec=[InputSpec([2, 3], "float32")],
                      opset_version=opset)
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    _check(sess.run(None, {sess.get_inputs()[0].name: X}))


def _picks(x):
    return (rt.argmax(x, axis=1), rt.argmin(x, axis=0), rt.argmax(x), rt.argmin(x, axis=1, keepdim=True),
            rt.argmax(x.astype("float64"), axis=0), rt.argmin(x.astype("float16"), axis=1))


def test_argmax_argmin_skip_nan_on_onnxruntime():
    """Paddle's argmax/argmin never pick nan (nor a value not beyond the dtype's lowest/highest):
    argmin([nan, 5]) is 1, and a row of nan and -inf gives 0; onnxruntime's ArgMax/ArgMin picked nan."""
    lo = np.finfo("float32").min
    sf = dy2st.to_static(_picks, backend="onnxruntime")
    for x in (X, np.array([[np.nan, np.nan, 3], [-np.inf, lo, -np.inf]], "float32"),
              np.array([[np.inf, np.nan, np.inf], [np.nan, np.nan, np.nan]], "float32")):
        with np.errstate(over="ignore"):  # float32's lowest cast to float16 is -inf, as meant
            pairs = list(zip(sf(rt.to_tensor(x)), _picks(rt.to_tensor(x))))
        for got, want in pairs:
            assert got.numpy().dtype == want.numpy().dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())
