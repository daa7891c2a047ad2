"""scale(bias_after_scale=False) computes (x + bias) * scale, as Paddle (the flag was ignored)."""
import numpy as np

import dy2st
import runtime as rt

from tests.hunt.eager_checks import check, t


def _scaled(x, b):
    return (rt.scale(x, 2.0, bias=1.0, bias_after_scale=False) * x.scale(-0.5, bias=b, bias_after_scale=False)
            + rt.scale(x, 2.0, bias=1.0))


def test_bias_before_scale_matches_paddle():
    x = t([-7.5, -3.25, 0.0, 3.5, 7.0])
    # Paddle 3.3: scale(x, 2., bias=1., bias_after_scale=False)
    np.testing.assert_array_equal(rt.scale(x, 2.0, bias=1.0, bias_after_scale=False).numpy(),
                                  [-13.0, -4.5, 2.0, 9.0, 16.0])
    np.testing.assert_array_equal(rt.scale(x, 2.0, bias=1.0).numpy(), [-14.0, -5.5, 1.0, 8.0, 15.0])
    check(_scaled, [(x, 3.0), (t([1.0, -2.0]), -1.0)], grad=True)


def test_bias_before_scale_with_tensor_bias_converted():
    sf = dy2st.to_static(lambda x, b: rt.scale(x, 3.0, bias=b, bias_after_scale=False))
    for bv in (0.5, -2.0):
        np.testing.assert_array_equal(sf(t([1.0, 2.0]), t([bv])).numpy(), (np.float32([1.0, 2.0]) + bv) * 3)
