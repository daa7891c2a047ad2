"""The Program cache tells apart Python arguments that `==` confuses: -0.0 and 0.0, and a plain
object whose attributes changed between calls."""
import numpy as np

import dy2st
import runtime as rt


def _times(x, k):
    return x * k


def test_negative_zero_argument_keeps_its_sign():
    sf = dy2st.to_static(_times)
    x = rt.to_tensor([1.0])
    assert np.signbit(sf(x, 0.0).numpy()[0]) == False  # noqa: E712
    assert np.signbit(sf(x, -0.0).numpy()[0]) == True  # noqa: E712


class _Config:
    def __init__(self, scale, mode):
        self.scale = scale
        self.mode = mode


def _configured(x, cfg):
    if cfg.mode == "double":
        return x * cfg.scale * 2
    return x * cfg.scale


def test_plain_object_argument_attribute_change_retraces():
    sf = dy2st.to_static(_configured)
    x = rt.to_tensor([1.0, 2.0])
    cfg = _Config(2.0, "single")
    for scale, mode in [(2.0, "single"), (5.0, "single"), (5.0, "double"), (2.0, "single")]:
        cfg.scale, cfg.mode = scale, mode
        np.testing.assert_array_equal(sf(x, cfg).numpy(), _configured(x, cfg).numpy())
    assert len(sf.program_cache) == 3


def test_same_object_same_attributes_hits_the_cache():
    sf = dy2st.to_static(_configured)
    cfg = _Config(3.0, "single")
    for v in ([1.0], [2.0], [4.0]):
        np.testing.assert_array_equal(sf(rt.to_tensor(v), cfg).numpy(), np.array(v, "float32") * 3)
    assert len(sf.program_cache) == 1
