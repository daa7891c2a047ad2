"""Pooling additions: ``return_mask=True`` for max_pool1d/2d/3d (and the layers), ``F.max_unpool1d/2d/3d``
and ``nn.MaxUnPool1D/2D/3D``, ``divisor_override``, and padding 'SAME'/'VALID': values, masks and
gradients against PaddlePaddle 3.3, converted against eager (bitwise), finite differences, a saved
and loaded model, and Paddle's errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from layer_checks import check_converted, check_converted_layer, check_fd, check_paddle, inp

# PaddlePaddle 3.3 (CPU), /tmp/layers/gen_refs.py: each call of _CASES on the same inputs; the output,
# the mask (where there is one) and the gradients of sum(out * wgt(out.shape)) on the float inputs.
MP2 = [1, 0.775566, 0.999859, 0.753902, 0.999435, 0.999859, 0.203005, 0.999435, 0.999435]  # shape [1, 1, 3, 3]
MP2_MASK = [0, 8, 9, 10, 18, 9, 16, 18, 18]  # shape [1, 1, 3, 3]
MP2_D0 = [0.479426, 0, 0, 0, 0, 0, 0, 0, 0.973848, 0.698567, -0.951602, 0, 0, 0, 0, 0, 0.902172, 0, -1.72045, 0, 0, 0, 0, 0, 0]  # shape [1, 1, 5, 5]
MP3 = [1, 0.999435, 0.742749, 0.999859, 0.999859, 0.153374]  # shape [1, 1, 1, 2, 3]
MP3_MASK = [0, 18, 19, 9, 9, 11]  # shape [1, 1, 1, 2, 3]
MP3_D0 = [0.479426, 0, 0, 0, 0, 0, 0, 0, 0, -1.50229, 0, 0.656987, 0, 0, 0, 0, 0, 0, 0.973848, 0.0415807, 0, 0, 0, 0]  # shape [1, 1, 2, 3, 4]
MP1 = [1, 1, 0.764842, 0.169967, -0.504846, -0.942222, -0.936457, -0.490261, 0.186512, 0.186512]  # shape [1, 2, 5]
MP1_MASK = [0, 0, 1, 2, 3, 0, 1, 2, 3, 3]  # shape [1, 2, 5]
MP1_D0 = [1.45327, 0.0415807, -0.951602, -0.550686, 0.656987, 0.902172, -0.174327, -1.35367]  # shape [1, 2, 4]
UP2 = [2, 0, 0, 0, 0, 0, 0, 0, 1.55113, 1.99972, 1.5078, 0, 0, 0, 0, 0, 0.40601, 0, 1.99887, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # shape [1, 1, 6, 6]
UP2_D0 = [0.479426, -0.995436, -0.358229, 0.803784, -0.943401, -0.358229, 0.637423, -0.943401, -0.943401]  # shape [1, 1, 3, 3]
AVG_DIV = [0.190195, 0.338168, 0.1847, -0.29699, 0.286673, 0.614798, -0.376526, -0.15831, 0.201022]  # shape [1, 1, 3, 3]
AVG_DIV_D0 = [0.269677, 0.63487, 0.365193, 0.388582, 0.0233891, -0.0871739, 0.140348, 0.227521, 0.497281, 0.269759, -0.356851, -0.494522, -0.137671, 0.108699, 0.24637, 0.150621, -0.052423, -0.203044, -0.516607, -0.313563, 0.507472, 0.442099, -0.0653725, -0.625305, -0.559933]  # shape [1, 1, 5, 5]
AVG3_SAME_DIV = [0.201508, -1.02903, -0.384187, 2.08218, 0.170431, -1.04986, -0.321651, 2.12361]  # shape [1, 1, 2, 2, 2]
AVG3_SAME_DIV_D0 = [0.159809, 0.159809, 0.649232, 0.159809, 0.159809, 0.649232, 0.0277204, 0.0277204, -1.2688, 0.159809, 0.159809, 0.649232, 0.159809, 0.159809, 0.649232, 0.0277204, 0.0277204, -1.2688, -0.367124, -0.367124, 0.875982, -0.367124, -0.367124, 0.875982, 1.2029, 1.2029, -0.464871]  # shape [1, 1, 3, 3, 3]
MP2_SAME = [1, 0.764842, 0.203005, 0.78607, 0.999435, 0.999859, 0.136737, -0.44569, 0.997739, 0.998728, 0.997739, 0.998728, -0.430575, 0.252119, 0.816239, 0.996468, 0.708043, 0.0866142]  # shape [1, 3, 3, 2]
MP2_SAME_D0 = [0.479426, 0.973848, 0, 0, 0, 0, 0, 0, 0, 0.656987, 0, 0, 0, 0, 0, 0, 0.0415807, -0.951602, -0.550686, 0, 0.902172, 0, 0, 0, 0, 0, 0, 0.430023, 0, 0, 0, 0, 0, -0.174327, 0, 0, -0.191652, 0, 0, 0, 0, 0, -0.382071, -0.992659, -0.148999, 0.912945, 0.637423, -0.571926, 0, 0]  # shape [1, 5, 5, 2]
AVG1_SAME = [0.644937, -0.4257, -0.93934]  # shape [1, 1, 3]
AVG1_SAME_D0 = [0.159809, 0.159809, 0.484424, 0.324616, 0.345406, 0.0207903]  # shape [1, 1, 6]


def _pooled():
    """max_pool2d(inp(1, 1, 5, 5), 3, 2, 1) times 2 and its mask (Paddle's mask: MP2_MASK)."""
    return [np.asarray(MP2, "float32").reshape(1, 1, 3, 3) * 2, np.asarray(MP2_MASK, "int32").reshape(1, 1, 3, 3)]


_CASES = [
    (lambda x: F.max_pool2d(x, 3, 2, 1, return_mask=True), lambda: [inp(1, 1, 5, 5)], MP2, [MP2_D0], MP2_MASK),
    (lambda x: F.max_pool3d(x, [2, 2, 3], [1, 2, 2], [0, 0, 1], return_mask=True, ceil_mode=True),
     lambda: [inp(1, 1, 2, 3, 4)], MP3, [MP3_D0], MP3_MASK),
    (lambda x: F.max_pool1d(x, 2, 1, 1, return_mask=True), lambda: [inp(1, 2, 4)], MP1, [MP1_D0], MP1_MASK),
    (lambda x, i: F.max_unpool2d(x, i, 3, 2, 1, output_size=[6, 6]), _pooled, UP2, [UP2_D0], None),
    (lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=4), lambda: [inp(1, 1, 5, 5)], AVG_DIV, [AVG_DIV_D0], None),
    (lambda x: F.avg_pool3d(x, 2, 2, "SAME", exclusive=False, divisor_override=3), lambda: [inp(1, 1, 3, 3, 3)],
     AVG3_SAME_DIV, [AVG3_SAME_DIV_D0], None),
    (lambda x: F.max_pool2d(x, [2, 3], 2, "SAME", data_format="NHWC"), lambda: [inp(1, 5, 5, 2)], MP2_SAME,
     [MP2_SAME_D0], None),
    (lambda x: F.avg_pool1d(x, 3, 2, "SAME"), lambda: [inp(1, 1, 6)], AVG1_SAME, [AVG1_SAME_D0], None),
]


@pytest.mark.parametrize("fn, arrays, want, grads, mask", _CASES)
def test_matches_paddle_and_converted(fn, arrays, want, grads, mask):
    check_paddle(fn, arrays(), want, grads, mask=mask)
    check_converted(fn, arrays())


def test_new_kernels_finite_differences():
    # distinct values keep every window's maximum away from a tie
    x = (np.random.default_rng(0).permutation(36).astype("float32") * 0.1).reshape(1, 1, 6, 6)
    check_fd(lambda x: F.max_pool2d(x, 3, 2, 1, return_mask=True), [x])
    check_fd(lambda x: F.max_pool3d(x, 2, [1, 2, 2], return_mask=True, ceil_mode=True), [x.reshape(1, 1, 2, 3, 6)])
    # unpool's gradient gathers at every index, as Paddle's: the derivative where indices are distinct
    out, mask = F.max_pool2d(rt.to_tensor(x), 2, return_mask=True)
    check_fd(lambda x, i: F.max_unpool2d(x, i, 2), [out.numpy(), mask.numpy()])
    check_fd(lambda x: F.avg_pool2d(x, 3, 2, "SAME", divisor_override=5), [x])


def test_pool_unpool_round_trip_layers():
    # MaxPool*D(return_mask=True) then MaxUnPool*D puts each maximum back where it was
    x = rt.to_tensor((np.random.default_rng(1).permutation(96).astype("float32")).reshape(1, 2, 48))
    for nd, shape in ((1, [1, 2, 48]), (2, [1, 2, 6, 8]), (3, [1, 2, 2, 4, 6])):
        xs = x.reshape(shape)
        pool = getattr(rt.nn, f"MaxPool{nd}D")(2, return_mask=True)
        out, mask = pool(xs)
        back = getattr(rt.nn, f"MaxUnPool{nd}D")(2)(out, mask).numpy()
        assert back.shape == tuple(shape)
        kept = back != 0
        assert kept.sum() == out.size
        np.testing.assert_array_equal(back[kept], xs.numpy()[kept])


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = rt.nn.Conv2D(2, 3, 3, padding="SAME")
        self.pool = rt.nn.MaxPool2D(2, return_mask=True)
        self.unpool = rt.nn.MaxUnPool2D(2)
        self.avg = rt.nn.AvgPool2D(3, 1, "SAME", divisor_override=2)

    def forward(self, x):
        h, mask = self.pool(self.conv(x))
        return self.avg(self.unpool(h * 2, mask))


def test_model_converted_with_gradients_and_saved(tmp_path):
    rt.seed(2)
    net = _Net()
    x = rt.to_tensor(inp(2, 2, 4, 6))
    st = dy2st.to_static(net, input_spec=[dy2st.InputSpec([None, 2, 4, 6])])
    check_converted_layer(st, [x])
    types = {op.type for op in st.forward.program_cache.last().main_program.global_block().ops}
    assert {"max_pool2d_with_index", "unpool", "avg_pool2d"} <= types
    dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded(x[:1]).numpy(), net(x[:1]).numpy())


def test_errors_are_paddles():
    x = rt.to_tensor(inp(1, 1, 5, 5))
    with pytest.raises(ValueError, match="data_format must be set to NCHW"):
        F.max_pool2d(x.transpose([0, 2, 3, 1]), 2, return_mask=True, data_format="NHWC")
    with pytest.raises(ValueError, match="ceil_mode must be False"):
        F.max_pool2d(x, 2, padding="VALID", ceil_mode=True)
    with pytest.raises(ValueError, match="SAME.*return_mask"):
        F.max_pool2d(x, 2, padding="SAME", return_mask=True)
    with pytest.raises(ValueError, match="same padding before and after"):
        F.max_pool2d(x, 3, 2, [0, 1, 1, 0], return_mask=True)
    with pytest.raises(ValueError, match="divisor_override"):
        F.avg_pool2d(x, 2, divisor_override="2")
    out, mask = F.max_pool2d(rt.to_tensor(inp(1, 1, 6, 7)), 2, return_mask=True)
    with pytest.raises(ValueError, match="outside the output"):  # Paddle: index should less than output
        F.max_unpool2d(out, mask, 2)  # the default output is 6 x 6, the mask counts in 6 x 7
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(out, mask, 2, output_size=[8, 7])
    with pytest.raises(ValueError, match="should be 'NCHW'"):
        F.max_unpool2d(out, mask, 2, data_format="NHWC")
