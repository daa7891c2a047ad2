"""`F.pad` honours channels-last data formats (the spatial dims, as Paddle's pad3d does), and in
constant mode takes pad amounts computed from dynamic dims (a Swin-style window pad): one Program
serves every size and matches eager."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from tests.compat.helpers import check


def _window_pad(x, ws):
    _, h, w, _ = x.shape
    return F.pad(x, [0, (ws - w % ws) % ws, 1, (ws - h % ws) % ws], data_format="NHWC", value=-1.0)


def _tensor_pad(x, h):
    amounts = rt.zeros([4], dtype="int32")
    amounts[3] = h // 2
    amounts[1] = 1
    return F.pad(x, amounts, data_format="NHWC")


def test_channels_last_pads_the_spatial_dims():
    x = rt.to_tensor(np.arange(24, dtype="float32").reshape(1, 2, 4, 3))
    out = F.pad(x, [1, 2, 0, 1], mode="replicate", data_format="NHWC").numpy()
    want = np.pad(x.numpy(), [(0, 0), (0, 1), (1, 2), (0, 0)], mode="edge")
    np.testing.assert_array_equal(out, want)
    # a shorter list in constant mode pads from the last dim, channels included (Paddle 3.3); other modes refuse it
    assert F.pad(x, [1, 0], data_format="NHWC").shape == [1, 2, 4, 4]
    with pytest.raises(ValueError, match="pad entries"):
        F.pad(x, [1, 0], mode="replicate", data_format="NHWC")


def test_pad_amounts_from_dynamic_dims_match_eager():
    sf = dy2st.to_static(_window_pad, input_spec=[dy2st.InputSpec([None, None, None, 3]), 4])
    for h, w in ((5, 6), (8, 8), (1, 3)):
        x = rt.to_tensor(np.random.default_rng(h).random((2, h, w, 3), "float32"))
        e, s = _window_pad(x, 4), sf(x, 4)
        assert e.shape == s.shape and np.array_equal(e.numpy(), s.numpy())
    assert len(sf.program_cache) == 1
    x = np.ones((1, 3, 3, 2), "float32")
    check(_tensor_pad, (x, np.array([6], "int32")), (x, np.array([1], "int32")), grad=True)
