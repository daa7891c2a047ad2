"""``nn.Conv3DTranspose`` / ``F.conv3d_transpose`` (and SAME/VALID, NHWC for ``F.conv2d_transpose``):
values and gradients against PaddlePaddle 3.3, converted against eager (bitwise), finite differences,
a saved and loaded model, ONNX, and Paddle's errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from layer_checks import check_converted, check_converted_layer, check_fd, check_onnx, check_paddle, inp

# PaddlePaddle 3.3 (CPU) values: /tmp/layers/gen_refs.py ran each call below on the same inputs (inp(...))
# and printed the output and the gradients of sum(out * wgt(out.shape)) on every float input.
CT_A = [1.64552, 1.12726, 1.40699, 1.78426, 1.56103, 1.57563, -0.159299, 0.125982, -0.0694806, 0.210476, -0.258737, -0.424881, 0.506726, -0.553072, -0.631858, 0.625962, -0.654203, -0.618109]  # shape [1, 1, 3, 2, 3]
CT_A_D0 = [-0.343207, 0.979974, 0.392948, -0.169624, 0.600487, -0.621805, -0.187577, -0.00883309]  # shape [1, 2, 2, 1, 2]
CT_A_D1 = [0.0880082, 0.655882, -0.405787, -0.458833, 1.24598, 0.52151, -0.742988, -0.00520593, -0.0325141, -0.627961, 0.149916, 0.322645, -1.09711, -0.33114, 0.63458, -0.272871]  # shape [2, 1, 2, 2, 2]
CT_B = [1, 1.19844, 1.43497, 1.0487, 1, -0.038047, 1.07393, 0.0607889, 1.78333, 0.780474, 1.97572, 0.447166, 1.13314, 0.237835, 1.16584, 0.45784, 1, -0.45837, 0.590166, -0.275036, 1, 0.635231, 0.786753, 0.598716, 0.261932, 0.0533734, 0.0806516, 0.461469, 0.615965, 0.533308, 0.521641, 0.452028]  # shape [1, 4, 1, 4, 2]
CT_B_D0 = [0.0226054, 0.0482361, -0.052255, 0.0722478, 0.057694, -0.0700724, 0.0688697, -0.0116494]  # shape [1, 2, 1, 2, 2]
CT_B_D1 = [-0.694907, 1.44416, -0.973063, 0.0611519, 1.03394, -0.861284, -0.619659, 0.958359]  # shape [2, 1, 2, 1, 2]
CT_B_D2 = [0.880008, 0.614426]  # shape [2]
CT_C = [0, 0.717356, 0, 0, 0, 0, 0.999574, 1.22413, 0, 0, 0, 0, 0.764516, 0.516623, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.121927, 0, 0, 0, 0, 0.169895, -0.247348, 0, 0, 0, 0, -0.504631, -0.341005, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # shape [1, 1, 4, 5, 3]
CT_C_D0 = [1.48263, -1.17747, -0.818373, -1.80632]  # shape [1, 1, 2, 2, 1]
CT_C_D1 = [1.42338, 1.35002, 1.08125, -1.02798]  # shape [1, 1, 1, 2, 2]


def _a(x, w):
    return F.conv3d_transpose(x, w, stride=2, padding=[1, 0, 1], output_padding=[1, 0, 1])


def _b(x, w, b):
    return F.conv3d_transpose(x, w, b, stride=[2, 1, 2], padding="SAME", groups=2, data_format="NDHWC")


def _c(x, w):
    return F.conv3d_transpose(x, w, stride=2, padding="VALID", dilation=[1, 2, 1], output_size=[4, 5, 3])


_CASES = [
    (_a, lambda: [inp(1, 2, 2, 1, 2), inp(2, 1, 2, 2, 2, f=np.sin, k=0.3)], CT_A, [CT_A_D0, CT_A_D1]),
    (_b, lambda: [inp(1, 2, 1, 2, 2), inp(2, 1, 2, 1, 2, f=np.sin, k=0.45), inp(2, k=1.1)], CT_B,
     [CT_B_D0, CT_B_D1, CT_B_D2]),
    (_c, lambda: [inp(1, 1, 2, 2, 1), inp(1, 1, 1, 2, 2, f=np.sin, k=0.8)], CT_C, [CT_C_D0, CT_C_D1]),
]


@pytest.mark.parametrize("fn, arrays, want, grads", _CASES)
def test_matches_paddle_converted_and_finite_differences(fn, arrays, want, grads):
    check_paddle(fn, arrays(), want, grads)
    check_converted(fn, arrays())
    check_fd(fn, arrays())


def test_conv2d_transpose_same_and_channels_last():
    # The same arrays through conv2d_transpose NHWC/SAME and NCHW with Paddle's SAME pads (the pads a
    # forward conv of the input's size takes: in 5, k 3, stride 2 -> 1 and 1; in 2, k 2 -> 0 and 0)
    x, w = inp(1, 5, 2, 3), inp(3, 2, 3, 2, f=np.sin, k=0.4)
    got = F.conv2d_transpose(rt.to_tensor(x), rt.to_tensor(w), stride=2, padding="same", data_format="NHWC")
    want = F.conv2d_transpose(rt.to_tensor(x.transpose(0, 3, 1, 2)), rt.to_tensor(w), stride=2, padding=[1, 0])
    assert got.shape == [1, 9, 4, 2]
    np.testing.assert_array_equal(got.numpy(), want.numpy().transpose(0, 2, 3, 1))
    check_converted(lambda x, w: F.conv2d_transpose(x, w, stride=[2, 1], padding="VALID", data_format="NHWC"), [x, w])


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.up = rt.nn.Conv3DTranspose(3, 4, [2, 3, 2], stride=2, padding=[0, 1, 0], groups=1)
        self.up2 = rt.nn.Conv3DTranspose(4, 2, 2, stride=[1, 2, 2], padding="SAME", groups=2,
                                         data_format="NDHWC")

    def forward(self, x):
        h = self.up(x, output_size=[5, 4, 5])
        return self.up2(rt.transpose(h, [0, 2, 3, 4, 1]))


def test_layer_parameters_converted_training_and_saved_model(tmp_path):
    rt.seed(5)
    net = _Net()
    assert [p.shape for p in net.parameters()] == [[3, 4, 2, 3, 2], [4], [4, 1, 2, 2, 2], [2]]
    x = inp(2, 3, 2, 2, 2)
    st = dy2st.to_static(net, input_spec=[dy2st.InputSpec([None, 3, 2, 2, 2])])
    _, eager = check_converted_layer(st, [rt.to_tensor(x)], loss=lambda out: (out * out).sum())
    assert eager.shape == [2, 5, 8, 9, 2]
    dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    for n in (1, 3):
        xv = rt.to_tensor(inp(n, 3, 2, 2, 2, k=0.3))
        np.testing.assert_array_equal(loaded(xv).numpy(), net(xv).numpy())


def test_onnx_export_runs_like_eager():
    check_onnx(_b, [[-1, 2, 1, 2, 2], [2, 1, 2, 1, 2], [2]],
               [inp(3, 2, 1, 2, 2), inp(2, 1, 2, 1, 2, f=np.sin, k=0.45), inp(2, k=1.1)])


def test_errors_are_paddles():
    x, w = rt.to_tensor(inp(1, 2, 2, 2, 2)), rt.to_tensor(inp(2, 2, 2, 2, 2))
    with pytest.raises(ValueError, match="mutually exclusive"):
        F.conv3d_transpose(x, w, stride=2, output_padding=1, output_size=[4, 4, 4])
    with pytest.raises(ValueError, match="output_size"):
        F.conv3d_transpose(x, w, stride=2, output_size=[6, 4, 4])  # inferred 4, stride 2: [4, 6)
    with pytest.raises(ValueError, match="output_padding"):
        F.conv3d_transpose(x, w, stride=2, output_padding=2)
    with pytest.raises(ValueError, match="channels"):
        F.conv3d_transpose(x, rt.to_tensor(inp(3, 2, 2, 2, 2)))
    with pytest.raises(ValueError, match="divisible"):
        F.conv3d_transpose(x, w, groups=3)
    with pytest.raises(ValueError, match="data_format"):
        F.conv3d_transpose(x, w, data_format="NCHW")
    with pytest.raises(ValueError, match="SAME.*dilation"):
        F.conv3d_transpose(x, w, padding="SAME", dilation=2)
    with pytest.raises(ValueError, match="divisible"):
        rt.nn.Conv3DTranspose(3, 4, 2, groups=2)
