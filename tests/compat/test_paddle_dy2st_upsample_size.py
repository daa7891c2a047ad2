"""YOLOv3's upsampling layer from Paddle's dygraph-to-static suite: the output size is computed from
``paddle.shape`` with ``paddle.slice``, an int cast and a multiplication, and ``F.interpolate`` reads it
while the Program is built when the input's dims are known; converted code then equals eager (values
and gradients) at every input size, and so does it over dims known only at run time (bicubic too)."""
import numpy as np

import dy2st
import runtime as paddle
from runtime.static import InputSpec

from .helpers import same


class Upsample(paddle.nn.Layer):
    def __init__(self, scale=2):
        super().__init__()
        self.scale = scale

    def forward(self, inputs):
        hw = paddle.slice(paddle.shape(inputs), axes=[0], starts=[2], ends=[4])
        hw.stop_gradient = True
        size = paddle.cast(hw, dtype="int32") * self.scale - (self.scale - 1) + (self.scale - 1)
        return paddle.nn.functional.interpolate(x=inputs, size=size, mode="nearest") * 1.5


def test_size_from_shape_slice_cast_and_scale_matches_eager():
    eager, conv = Upsample(), dy2st.to_static(Upsample())
    rng = np.random.default_rng(0)
    for shape in ([1, 2, 3, 4], [2, 3, 5, 5], [1, 1, 2, 7]):
        data = rng.standard_normal(shape).astype("float32")
        a, b = paddle.to_tensor(data, stop_gradient=False), paddle.to_tensor(data, stop_gradient=False)
        out_e, out_s = eager(a), conv(b)
        assert out_s.shape == [shape[0], shape[1], 2 * shape[2], 2 * shape[3]]
        same(out_e, out_s)
        (out_e ** 2).sum().backward()
        (out_s ** 2).sum().backward()
        same(a.grad, b.grad)


def test_unknown_spatial_dims_resize_at_run_time_like_eager():
    # unknown dims were refused: the gather indices now come from ops on the run-time sizes
    eager, conv = Upsample(), dy2st.to_static(Upsample(), input_spec=[InputSpec([None, 2, None, None])])
    rng = np.random.default_rng(1)
    for shape in ([1, 2, 3, 3], [2, 2, 5, 2]):
        data = rng.standard_normal(shape).astype("float32")
        a, b = paddle.to_tensor(data, stop_gradient=False), paddle.to_tensor(data, stop_gradient=False)
        out_e, out_s = eager(a), conv(b)
        np.testing.assert_array_equal(out_s.numpy(), out_e.numpy())
        (out_e ** 2).sum().backward()
        (out_s ** 2).sum().backward()
        np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())


def _bicubic(x):
    return (paddle.nn.functional.interpolate(x, scale_factor=2, mode="bicubic")
            + paddle.nn.functional.interpolate(x, size=[6, 5], mode="bicubic", align_corners=True)[:, :, :1, :1])


def test_bicubic_over_unknown_dims_resizes_like_eager():
    # it was refused ("dim 2 of the input must be known"): the taps are computed when the Program runs
    conv = dy2st.to_static(_bicubic, input_spec=[InputSpec([None, 2, None, None])])
    rng = np.random.default_rng(2)
    for shape in ([1, 2, 3, 3], [2, 2, 5, 2]):
        data = rng.standard_normal(shape).astype("float32")
        a, b = paddle.to_tensor(data, stop_gradient=False), paddle.to_tensor(data, stop_gradient=False)
        out_e, out_s = _bicubic(a), conv(b)
        np.testing.assert_array_equal(out_s.numpy(), out_e.numpy())
        (out_e ** 2).sum().backward()
        (out_s ** 2).sum().backward()
        np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())
