"""Integer `/` divides truly into float32, as Paddle 3 does (it used to truncate to an integer)."""
import numpy as np

import dy2st
import runtime as rt


def _div(a, b):
    return a / b, rt.divide(a, b), a / 2, 7 / a


def test_integer_true_division_gives_float32_eager_and_converted():
    a = rt.to_tensor([7, -7, 1])
    b = rt.to_tensor(np.array([2, 2, 0], "int32"))
    want = [[3.5, -3.5, np.inf], [3.5, -3.5, np.inf], [3.5, -3.5, 0.5], [1.0, -1.0, 7.0]]
    with np.errstate(divide="ignore"):
        for outs in (_div(a, b.astype("int64")), dy2st.to_static(_div)(a, b.astype("int64"))):
            assert [o.dtype for o in outs] == ["float32"] * 4
            assert [o.numpy().tolist() for o in outs] == want
        assert (rt.to_tensor([True, False]) / rt.to_tensor([True, True])).numpy().tolist() == [1.0, 0.0]
