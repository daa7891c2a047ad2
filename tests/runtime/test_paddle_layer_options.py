"""Paddle layer options: Conv1D/2D/3D with padding_mode reflect/replicate/circular (Paddle's: F.pad first,
then no padding) against np.pad + a zero-padded convolution, converted against eager with gradients;
F.batch_norm without weight/bias (Paddle's defaults)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F

_NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
CASES = [("Conv1D", (2, 3, 9), "NCL"), ("Conv2D", (2, 3, 6, 7), "NCHW"), ("Conv2D", (2, 6, 7, 3), "NHWC"),
         ("Conv3D", (1, 3, 4, 5, 5), "NCDHW")]


@pytest.mark.parametrize("mode", sorted(_NP_MODE))
@pytest.mark.parametrize("cls,shape,fmt", CASES)
def test_matches_np_pad_then_conv_and_converted_matches_eager(cls, shape, fmt, mode):
    rt.seed(0)
    layer = getattr(rt.nn, cls)(3, 4, 3, padding=1, padding_mode=mode, data_format=fmt)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    spatial = [i for i, c in enumerate(fmt) if c not in "NC"]
    widths = [(1, 1) if i in spatial else (0, 0) for i in range(len(shape))]
    padded = rt.to_tensor(np.pad(x, widths, mode=_NP_MODE[mode]))
    fn = {"Conv1D": F.conv1d, "Conv2D": F.conv2d, "Conv3D": F.conv3d}[cls]
    ref = fn(padded, layer.weight, layer.bias, data_format=fmt).numpy()
    np.testing.assert_allclose(layer(rt.to_tensor(x)).numpy(), ref, rtol=1e-5, atol=1e-5)

    static = dy2st.to_static(layer)
    for scale in (1.0, -2.0):
        xs = [rt.to_tensor(x * scale, stop_gradient=False) for _ in range(2)]
        outs = []
        for run, t in zip((layer.forward.dygraph_function.__get__(layer), static), xs):
            out = run(t)
            (out * out).sum().backward()
            outs.append((out.numpy(), t.grad.numpy(), layer.weight.grad.numpy().copy()))
            layer.clear_gradients()
        for a, b in zip(*outs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert len(static.forward.program_cache) == 1


def test_padding_mode_errors_are_paddles():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        rt.nn.Conv2D(3, 4, 3, padding_mode="mirror")
    with pytest.raises(TypeError, match="padding must be an int"):
        rt.nn.Conv2D(3, 4, 3, padding=[1, 2], padding_mode="reflect")


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_without_weight_and_bias_is_the_unit_affine(training):
    x = np.random.default_rng(2).standard_normal((4, 3, 2, 2)).astype("float32")

    def run(fn, affine):
        rm, rv = rt.to_tensor(np.full(3, 0.5, "float32")), rt.to_tensor(np.full(3, 2.0, "float32"))
        t = rt.to_tensor(x, stop_gradient=False)
        y = fn(t, rm, rv, affine)
        (y * y).sum().backward()
        return y.numpy(), t.grad.numpy(), rm.numpy(), rv.numpy()

    def bn(t, rm, rv, affine):
        wb = (rt.ones([3]), rt.zeros([3])) if affine else ()
        return F.batch_norm(t, rm, rv, *wb, training=training, momentum=0.8)

    @dy2st.to_static
    def converted(t, rm, rv, affine):
        return bn(t, rm, rv, affine)

    ref = run(bn, True)
    for got in (run(bn, False), run(converted, False)):
        for a, b in zip(ref, got):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
