"""float64 gelu (and its gradient) is exact to float64, not to the float32-grade erf polynomial (1e-7 off)."""
import math

import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _gelu(x):
    return F.gelu(x)


def test_float64_gelu_is_exact_eager_and_converted():
    v = np.array([1.2, -0.3, 2.5, -1.1, 0.0])
    want = [a * 0.5 * (1 + math.erf(a / math.sqrt(2))) for a in v]
    dwant = [0.5 * (1 + math.erf(a / math.sqrt(2))) + a * math.exp(-a * a / 2) / math.sqrt(2 * math.pi) for a in v]
    for fn in (_gelu, dy2st.to_static(_gelu)):
        x = rt.to_tensor(v, stop_gradient=False)
        out = fn(x)
        out.sum().backward()
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(x.grad.numpy(), dwant, rtol=1e-14, atol=1e-15)


def test_float16_gelu_is_computed_in_float32():
    """float16 gelu and its gradient are float32 results rounded once, as Paddle's float16 kernels
    compute; in float16 arithmetic 1 + erf(x) cancels: gelu(-3.377) was 33% off."""
    v = np.linspace(-6, 6, 241).astype("float16")
    exact = np.array([a * 0.5 * (1 + math.erf(a / math.sqrt(2))) for a in v.astype("float64")])
    dexact = np.array([0.5 * (1 + math.erf(a / math.sqrt(2))) + a * math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
                       for a in v.astype("float64")])
    for fn in (_gelu, dy2st.to_static(_gelu)):
        x = rt.to_tensor(v, stop_gradient=False)
        out = fn(x)
        out.sum().backward()
        assert out.dtype == "float16" and x.grad.dtype == "float16"
        np.testing.assert_allclose(out.numpy().astype("float64"), exact, rtol=1e-3, atol=1e-7)
        np.testing.assert_allclose(x.grad.numpy().astype("float64"), dexact, rtol=1e-3, atol=1e-4)
