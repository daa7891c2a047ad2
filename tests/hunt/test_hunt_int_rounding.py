"""Integer inputs to floor/ceil/round stay integers, and clip of an int tensor with a float bound computes
in float32, as in Paddle (the bound used to be truncated: clip(-3, min=0.5) gave 0)."""
import numpy as np

import dy2st
import runtime as rt


def _rounding(x):
    return rt.floor(x), x.ceil(), rt.round(x)


def _clips(x):
    return rt.clip(x, min=0.5, max=3), x.clip(max=2.5), rt.clip(x, -1, 1)


def test_int_floor_ceil_round_keep_the_int_eager_and_converted():
    x = rt.to_tensor([2**40 + 1, -3])
    for outs in (_rounding(x), dy2st.to_static(_rounding)(x)):
        assert [o.dtype for o in outs] == ["int64"] * 3
        assert all(o.numpy().tolist() == [2**40 + 1, -3] for o in outs)


def test_int_clip_with_float_bounds_computes_in_float32():
    x = rt.to_tensor([-3, 0, 2, 5])
    for lo, hi, ints in (_clips(x), dy2st.to_static(_clips)(x)):
        assert (lo.dtype, hi.dtype, ints.dtype) == ("float32", "float32", "int64")
        np.testing.assert_array_equal(lo.numpy(), [0.5, 0.5, 2.0, 3.0])
        np.testing.assert_array_equal(hi.numpy(), [-3.0, 0.0, 2.0, 2.5])
        assert ints.numpy().tolist() == [-1, 0, 1, 1]
