"""argmax/argmin as Paddle's kernel: nan never wins (numpy's argmax returns the first nan), and a
row with no value beyond the dtype's lowest (highest) finite value gives index 0. Expected values
are Paddle 3.3's (CPU)."""
import numpy as np

import dy2st
import runtime as rt

from tests.hunt.eager_checks import t

NAN, INF = float("nan"), float("inf")
BIG = float(np.finfo(np.float32).max)
# row -> (argmax, argmin) in float32, from Paddle
ROWS = [([NAN, 1, 2], 2, 1), ([1, NAN, 2], 2, 0), ([2, NAN, 1], 0, 2), ([NAN, NAN], 0, 0),
        ([NAN, -INF], 0, 1), ([-INF, NAN, 1], 2, 0), ([NAN, INF], 1, 0), ([BIG, INF, NAN], 1, 0),
        ([NAN, -1, NAN, 5], 3, 1), ([2, NAN, 2], 0, 0), ([1, 2, 2, 1], 1, 0)]


def test_rows_match_paddle_eager_and_converted():
    sf = dy2st.to_static(lambda x: (rt.argmax(x), rt.argmin(x)))
    for row, amax, amin in ROWS:
        x = t(row)
        assert (int(rt.argmax(x)), int(rt.argmin(x))) == (amax, amin), row
        got = sf(x)
        assert (int(got[0]), int(got[1])) == (amax, amin), row


def test_axis_and_float64():
    x = t([[NAN, 1, 2], [2, NAN, 1]], "float64")
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), [2, 0])
    np.testing.assert_array_equal(x.argmin(axis=0).numpy(), [1, 0, 1])
    np.testing.assert_array_equal(x.argmax(axis=0, keepdim=True).numpy(), [[1, 0, 0]])
    # -FLT_MAX is beyond float64's lowest value: float64 picks it, float32 does not
    assert int(t([NAN, -BIG], "float64").argmax()) == 1 and int(t([NAN, -BIG]).argmax()) == 0
