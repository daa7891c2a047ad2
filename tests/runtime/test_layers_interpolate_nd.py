"""``F.interpolate`` / ``nn.Upsample``: 'linear' (3-D), 'trilinear' (5-D), 'nearest' on 5-D, and
channels-last data_format (NWC/NHWC/NDHWC): values and gradients against PaddlePaddle 3.3, converted
against eager (bitwise), finite differences, a saved and loaded model, and Paddle's errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from layer_checks import check_converted, check_converted_layer, check_fd, check_paddle, inp

# PaddlePaddle 3.3 (CPU), /tmp/layers/gen_refs.py: each call of _CASES on the same input; the output and
# the gradient of sum(out * wgt(out.shape)) on the input.
LIN = [1, 0.916015, 0.781639, 0.467405, 0.121766, -0.263841, -0.504846, -0.942222, -0.940163, -0.936869, -0.713359, -0.44192, -0.0551922, 0.186512]  # shape [1, 2, 7]
LIN_D0 = [1.10844, -0.0893877, -0.752514, 1.28519, -0.839838, -0.286262, 0.997386, -1.18197]  # shape [1, 2, 4]
LIN_NWC_AC = [1, 0.764842, 0.50198, 0.0030292, -0.0524708, -0.591168, -0.719785, -0.850135, -0.761438, -0.487269, -0.490261, 0.186512]  # shape [1, 6, 2]
LIN_NWC_AC_D0 = [0.496058, 0.593207, -0.235166, -0.0802374, 0.0143387, -0.223002, 0.40561, 0.64496]  # shape [1, 4, 2]
LIN_AM1 = [1, 0.509896, -0.408444, -0.940575]  # shape [1, 1, 4]
LIN_AM1_D0 = [0.479426, 0.556484, 0.423303, 0.0356406, -0.679716, -0.271886]  # shape [1, 1, 6]
TRI = [0.941211, 0.318686, -0.0309149, -0.466679, -0.504269, -0.350573, -0.321068, 0.628302, 0.93979, 0.311096, -0.0352622, -0.468542, -0.50524, -0.347339, -0.313485, 0.634303, 0.93837, 0.303506, -0.0396095, -0.470404, -0.506211, -0.344105, -0.305901, 0.640304]  # shape [1, 1, 3, 4, 2]
TRI_D0 = [0.111007, 0.183422, 0.43926, -0.139804, -0.108604, -0.186009, 0.412145, 0.22298, 0.256794, -0.0475211, -0.16035, -0.43353, 0.115693, 0.104463, 0.197695, -0.385409, -0.230555, -0.306255]  # shape [1, 1, 2, 3, 3]
TRI_NDHWC_AC = [1, 0.764842, 0.446645, -0.0816167, -0.200763, -0.648716, -0.942222, -0.936457, -0.490261, 0.186512, 0.353624, 0.728743, 0.768345, 0.717697, 0.753902, 0.153374, 0.240356, -0.0914397, -0.173368, -0.357274, -0.376689, -0.351859, -0.369609, -0.0751932, 0.254587, 0.464631, 0.388963, 0.310302, 0.270926, 0.0269649, -0.0995253, -0.385379, -0.519289, -0.947722, -0.79338, -0.632932, -0.552616, -0.0550012, 0.203005, 0.78607, 0.999435, 0.742749, 0.424303, -0.10814, -0.226493, -0.663767, -0.952953, -0.924133]  # shape [1, 3, 2, 4, 2]
TRI_NDHWC_AC_D0 = [0.654763, 0.381885, -0.327418, -0.0217591, 0.514336, -0.304191, -0.544927, 0.260534, 0.127124, -0.264089, 0.0910104, 0.68244, -0.571178, -0.524109, 0.333622, 0.112163, -0.620074, 0.123612, 0.639436, -0.0762526, -0.206848, 0.197927, 0.0991484, -0.63048]  # shape [1, 2, 2, 3, 2]
NEAR3 = [1, 0.764842, 1, 0.764842, -0.504846, -0.942222, 1, 0.764842, 1, 0.764842, -0.504846, -0.942222, -0.490261, 0.186512, -0.490261, 0.186512, 0.999859, 0.753902, -0.490261, 0.186512, -0.490261, 0.186512, 0.999859, 0.753902]  # shape [1, 1, 4, 3, 2]
NEAR3_D0 = [0.427742, -0.510311, 0, 0.253099, 1.44524, 0, -0.495114, 0.44424, 0, -0.097577, -1.42189, 0]  # shape [1, 1, 2, 2, 3]
BIL_NHWC = [1, 0.764842, 0.667987, 0.256967, 0.169967, -0.504846, -0.497347, -0.763813, -0.942222, -0.936457, 0.25487, 0.475677, 0.342028, 0.384409, 0.472767, 0.247506, 0.13261, -0.135922, -0.0941601, -0.391541, -0.490261, 0.186512, 0.0160699, 0.511851, 0.775566, 0.999859, 0.762568, 0.491968, 0.753902, 0.153374]  # shape [1, 3, 5, 2]
BIL_NHWC_D0 = [0.791645, 0.499215, -0.196614, 0.350171, -0.734607, -0.600799, 0.825629, 0.0430928, 0.0647119, 0.458017, -0.844401, -0.175963]  # shape [1, 2, 3, 2]

_CASES = [
    (dict(size=[7], mode="linear"), (1, 2, 4), LIN, LIN_D0),
    (dict(scale_factor=1.5, mode="linear", align_corners=True, data_format="NWC"), (1, 4, 2), LIN_NWC_AC,
     LIN_NWC_AC_D0),
    (dict(scale_factor=0.7, mode="linear", align_mode=1), (1, 1, 6), LIN_AM1, LIN_AM1_D0),
    (dict(size=[3, 4, 2], mode="trilinear"), (1, 1, 2, 3, 3), TRI, TRI_D0),
    (dict(size=[3, 2, 4], mode="trilinear", align_corners=True, data_format="NDHWC"), (1, 2, 2, 3, 2),
     TRI_NDHWC_AC, TRI_NDHWC_AC_D0),
    (dict(scale_factor=[2, 1.5, 0.7], mode="nearest"), (1, 1, 2, 2, 3), NEAR3, NEAR3_D0),
    (dict(size=[3, 5], mode="bilinear", data_format="NHWC"), (1, 2, 3, 2), BIL_NHWC, BIL_NHWC_D0),
]


@pytest.mark.parametrize("kw, shape, want, grad", _CASES)
def test_matches_paddle_and_converted(kw, shape, want, grad):
    def fn(x):
        return F.interpolate(x, **kw)
    check_paddle(fn, [inp(*shape)], want, [grad])
    check_converted(fn, [inp(*shape)])


def test_finite_differences():
    check_fd(lambda x: F.interpolate(x, size=[5], mode="linear", data_format="NWC"), [inp(1, 3, 2)])
    check_fd(lambda x: F.interpolate(x, scale_factor=[1.5, 0.8, 2], mode="trilinear"), [inp(1, 1, 2, 3, 2)])


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = rt.nn.Conv3D(1, 2, 1)
        self.up = rt.nn.Upsample(scale_factor=2, mode="trilinear", data_format="NDHWC")
        self.up1 = rt.nn.Upsample(size=[5], mode="linear", align_corners=True)

    def forward(self, x):
        h = self.up(self.conv(x).transpose([0, 2, 3, 4, 1]))  # [N, 4, 4, 4, 2]
        return self.up1(h.reshape([-1, 16, 8]))  # NCW: 16 channels of length 8


def test_model_converted_with_gradients_and_saved(tmp_path):
    rt.seed(4)
    net = _Net()
    x = rt.to_tensor(inp(2, 1, 2, 2, 2))
    st = dy2st.to_static(net, input_spec=[dy2st.InputSpec([None, 1, 2, 2, 2])])
    _, eager = check_converted_layer(st, [x], loss=lambda out: (out * out).sum())
    assert eager.shape == [2, 16, 5]
    dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded(x[:1]).numpy(), net(x[:1]).numpy())


def test_errors_are_paddles():
    x3, x4, x5 = (rt.to_tensor(inp(*s)) for s in ((1, 2, 4), (1, 2, 3, 3), (1, 1, 2, 2, 2)))
    with pytest.raises(ValueError, match="'linear' only support 3-D"):
        F.interpolate(x4, scale_factor=2, mode="linear")
    with pytest.raises(ValueError, match="'trilinear'only support 5-D"):
        F.interpolate(x4, scale_factor=2, mode="trilinear")
    with pytest.raises(ValueError, match="'NEAREST' only support 4-D"):
        F.interpolate(x3, scale_factor=2)
    with pytest.raises(ValueError, match="only `NCW` or `NWC`"):
        F.interpolate(x3, scale_factor=2, mode="linear", data_format="NCHW")
    with pytest.raises(ValueError, match="rank"):
        F.interpolate(x5, size=[2, 2], mode="trilinear")
    with pytest.raises(ValueError, match="3-D, 4-D or 5-D"):
        F.interpolate(rt.ones([2, 3]), scale_factor=2)
    with pytest.raises(ValueError, match="mode"):
        F.interpolate(x4, scale_factor=2, mode="cubic")
