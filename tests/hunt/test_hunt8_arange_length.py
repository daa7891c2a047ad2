"""`arange` counts its values as Paddle's kernel does, ceil((end - start) / step) in the dtype's own
arithmetic with the bounds cast to it first, eagerly and in a Program with tensor bounds alike:
the converted code divided the float32 bounds in double (and eager Python floats in double), so
`rt.arange(0.0, t, 0.1)` with t = float32 0.1 had one value converted and two eagerly (Paddle: one)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _tensor_end(end):
    return rt.arange(0.0, end, 0.1)


def _tensor_bounds(start, end, step):
    return rt.arange(start, end, step)


def _loop_over_arange(end):
    s = end * 0
    for v in rt.arange(0.0, end, 0.1):
        s = s + v
    return s


# (start, end, step, values Paddle 3.3 gives for float32)
CASES = [(0.0, 0.1, 0.1, [0.0]), (0.0, 0.4, 0.1, [0.0, 0.1, 0.2, 0.3]), (0.8, -2.4, -0.1, 32), (-0.8, 5.8, 0.3, 22)]


def test_python_float_bounds_count_in_float32():
    assert rt.arange(0.0, float(np.float32(0.1)), 0.1).shape == [1]
    assert rt.arange(0.0, float(np.float32(0.6)), 0.3).shape == [2]
    assert rt.arange(0.0, float(np.float32(0.1)), 0.1, dtype="float64").shape == [2]  # double bounds
    assert rt.arange(0, 1, 0.1).shape == [10]


def test_tensor_bounds_converted_and_eager_agree_with_paddle_counts():
    for start, end, step, want in CASES:
        out = dy2st.to_static(_tensor_bounds)(t(start), t(np.float32(end)), t(step))
        eager = _tensor_bounds(t(start), t(np.float32(end)), t(step))
        n = want if isinstance(want, int) else len(want)
        assert out.shape == eager.shape == [n]
        np.testing.assert_array_equal(out.numpy(), eager.numpy())
        if not isinstance(want, int):
            np.testing.assert_array_equal(out.numpy(), np.asarray(want, "float32"))
    check(_tensor_end, [(t(0.1),), (t(0.2),), (t(0.9),), (t(1.0),)])
    check(_loop_over_arange, [(t(0.1),), (t(0.4),), (t(0.7),)], grad=True)


def test_onnxruntime_backend_counts_and_accumulates_as_the_kernel():
    pytest.importorskip("onnxruntime")
    sf = dy2st.to_static(_tensor_bounds, backend="onnxruntime")
    for start, end, step, _ in CASES + [(0.1, 1.1, 0.1, None), (1.5, 0.9, -0.05, None), (0.0, 1.0, 1 / 3, None)]:
        args = (t(start), t(np.float32(end)), t(step))
        eager = _tensor_bounds(*args)
        out = sf(*args)
        assert out.shape == eager.shape
        np.testing.assert_array_equal(out.numpy(), eager.numpy())
