"""A 0-d result of converted code (a reduction, an index, slogdet/cond/matrix_rank) holds an ndarray
as the eager Tensor does, not a numpy scalar: item assignment into it and writes through its
``numpy()`` behave as eagerly (they raised TypeError or were silently lost)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _outputs(x, m):
    if x.mean() > 0:
        s = (x * x).sum()
    else:
        s = x.max()
    return s, x[1], rt.linalg.slogdet(m)[1], rt.linalg.cond(m), rt.linalg.matrix_rank(m)


@pytest.mark.parametrize("grad", [False, True])
def test_zero_d_outputs_hold_arrays(grad):
    m = rt.to_tensor(np.diag([2.0, 3.0, 4.0]).astype("float32"))
    results = []
    for fn in (_outputs, dy2st.to_static(_outputs)):
        x = rt.to_tensor(np.array([1.0, -2.0, 3.0], "float32"), stop_gradient=not grad)
        outs = fn(x, m)
        assert all(type(o.numpy()) is np.ndarray for o in outs)
        s = outs[0]
        v = s.numpy()
        v += 1  # the array the Tensor holds, as eagerly
        s[...] = s * 2
        results.append([o.numpy().copy() for o in outs])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
