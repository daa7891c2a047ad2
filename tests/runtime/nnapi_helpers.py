"""Shared checks for the Paddle 2.x nn API tests (test_nn_api_*.py): converted code against eager
(values and gradients, bitwise), a saved-and-loaded model against eager, and an ONNX export run by
onnxruntime."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def run_with_grads(fn, arrays, weight_seed=0):
    """``fn(*tensors)``'s output and the inputs' gradients of a fixed weighted sum of it (float inputs only)."""
    ts = [rt.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in arrays]
    out = fn(*ts)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    floats = [o for o in outs if str(o.dtype).startswith("float")]
    rng = np.random.default_rng(weight_seed)
    loss = sum((o * rt.to_tensor(rng.standard_normal(o.shape).astype(str(o.dtype)))).sum() for o in floats)
    loss.backward()
    return [o.numpy() for o in outs], [t.grad.numpy() if t.grad is not None else None for t in ts
                                         if not t.stop_gradient]


def check_converted(fn, *arrays, exact=True):
    """``dy2st.to_static(fn)`` gives eager's outputs and gradients (bitwise when ``exact``); returns eager's."""
    eager = run_with_grads(fn, arrays)
    static = run_with_grads(dy2st.to_static(fn), arrays)
    for e, s in zip(eager[0] + eager[1], static[0] + static[1]):
        if e is None:
            assert s is None
        elif exact:
            np.testing.assert_array_equal(s, e)
        else:
            np.testing.assert_allclose(s, e, rtol=1e-6, atol=1e-6)
    return eager


def check_saved(layer, x, tmp_path, tol=0.0):
    """A converted ``layer`` saved with dy2st.save and loaded back gives the eager layer's output (``x``: an
    array, or a tuple of arrays for a layer of several inputs)."""
    layer.eval()
    xs = x if isinstance(x, tuple) else (x,)
    want = layer(*[rt.to_tensor(a) for a in xs])  # before to_static, which converts the Layer in place
    st = dy2st.to_static(layer, input_spec=[dy2st.InputSpec(list(a.shape), str(a.dtype)) for a in xs])
    dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    got = loaded(*[rt.to_tensor(a) for a in xs])
    want, got = (want[0], got[0]) if isinstance(want, (list, tuple)) else (want, got)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


def check_onnx(fn, x, tol=1e-6):
    """``fn`` built into a Program on an input shaped like ``x``, exported to ONNX and run by onnxruntime,
    agrees with eager."""
    ort = pytest.importorskip("onnxruntime")
    from runtime.static.onnx.export import build_model
    main = rt.static.Program()
    with rt.static.program_guard(main):
        y = fn(rt.static.data("x", list(x.shape), str(x.dtype)))
    sess = ort.InferenceSession(build_model(main, ["x"], [y.name]).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], fn(rt.to_tensor(x)).numpy(), rtol=tol, atol=tol)
