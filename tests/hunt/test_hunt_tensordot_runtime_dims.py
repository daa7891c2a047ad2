"""rt.tensordot over dims unknown while the Program is built multiplied their -1 placeholders into the
contracted size and the output shape ("reshape: shape [-1, -1] has more than one -1"); those dims are
read when the Program runs, with eager's values and gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


@pytest.mark.parametrize("axes, sa, sb, shapes", [
    (1, [None, 3], [3, None], [((2, 3), (3, 4)), ((1, 3), (3, 1))]),
    ([[1], [0]], [None, None], [None, None], [((2, 3), (3, 1))]),
    ([[0], [0]], [None, 3], [None, 2], [((4, 3), (4, 2))]),
])
def test_tensordot_over_run_time_dims(axes, sa, sb, shapes):
    def fn(a, b):
        return rt.tensordot(a, b, axes=axes)
    sf = dy2st.to_static(fn, input_spec=[InputSpec(sa, "float32"), InputSpec(sb, "float32")])
    for shape_a, shape_b in shapes:
        got = []
        for call in (fn, sf):
            a = rt.to_tensor(np.random.RandomState(0).rand(*shape_a).astype("float32"), stop_gradient=False)
            b = rt.to_tensor(np.random.RandomState(1).rand(*shape_b).astype("float32"), stop_gradient=False)
            out = call(a, b)
            (out * out).sum().backward()
            got.append((out.numpy(), a.grad.numpy(), b.grad.numpy()))
        for e, s in zip(*got):
            assert s.shape == e.shape
            np.testing.assert_allclose(s, e, rtol=1e-6)
