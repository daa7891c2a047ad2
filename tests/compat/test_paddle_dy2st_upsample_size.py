"""YOLOv3's upsampling layer from Paddle's dygraph-to-static suite: the output size is computed from
``paddle.shape`` with ``paddle.slice``, an int cast and a multiplication, and ``F.interpolate`` reads it
while the Program is built when the input's dims are known; converted code then equals eager (values
and gradients) at every input size. Unknown dims still get the clear refusal."""
import numpy as np
import pytest

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


def test_unknown_spatial_dims_are_refused_at_the_users_line():
    conv = dy2st.to_static(Upsample(), input_spec=[InputSpec([None, 2, None, None])])
    with pytest.raises((ValueError, NotImplementedError), match="known") as info:
        conv(paddle.ones([1, 2, 3, 3]))
    assert "test_paddle_dy2st_upsample_size.py" in str(info.value) + "".join(getattr(info.value, "__notes__", []))
