"""conv2d(padding="SAME", dilation>1) raises: Paddle silently convolves undilated there, so any answer
would differ from the Paddle code being ported."""
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _conv(x, w):
    return F.conv2d(x, w, padding="SAME", dilation=2)


def test_same_padding_with_dilation_raises_eager_and_converted():
    x, w = rt.ones([1, 1, 5, 5]), rt.ones([1, 1, 3, 3])
    for fn in (_conv, dy2st.to_static(_conv)):
        with pytest.raises(ValueError, match="dilation"):
            fn(x, w)
    assert F.conv2d(x, w, padding="SAME").numpy()[0, 0, 0].tolist() == [4.0, 6.0, 6.0, 6.0, 4.0]
