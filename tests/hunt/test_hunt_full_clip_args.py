"""full() with a bool fill is a bool tensor, and clip with min > max raises, as in Paddle (they gave
float32 ones and numpy's silent `max everywhere`)."""
import pytest

import dy2st
import runtime as rt


def _full():
    return rt.full([2], True), rt.full([2], 3)


def _clip(x):
    return rt.clip(x, 3, 1)


def test_bool_full_is_bool_eager_and_converted():
    for b, i in (_full(), dy2st.to_static(_full)()):
        assert (b.dtype, i.dtype) == ("bool", "float32")
        assert b.numpy().tolist() == [True, True]


def test_clip_with_min_above_max_raises_eager_and_converted():
    for fn in (_clip, dy2st.to_static(_clip)):
        with pytest.raises(ValueError, match="must not exceed"):
            fn(rt.to_tensor([0.0, 5.0]))
