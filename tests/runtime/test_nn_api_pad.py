"""Paddle's padding layers by mode and rank (runtime/nn/layers_pad.py): values, gradients and reprs as
Paddle 3.3 gives them (hard-coded below), converted against eager bitwise with gradients, saved and
loaded, exported to ONNX; and their errors."""
import numpy as np
import pytest

import runtime as rt
from nnapi_helpers import check_converted, check_onnx, check_saved

nn = rt.nn
X1 = np.arange(8, dtype="float32").reshape(1, 2, 4)
X2 = np.arange(9, dtype="float32").reshape(1, 1, 3, 3)
X3 = np.arange(12, dtype="float32").reshape(1, 1, 2, 2, 3)

# (layer, args, input, Paddle 3.3's output shape, sum and sum of squares, repr): from
# paddle.nn.<Layer>(*args)(paddle.to_tensor(input)) in a scratch script
PADDLE = [
    (nn.ConstantPad1D, ([1, 2], 2.5), X1, [1, 2, 7], 43.0, 177.5,
     "ConstantPad1D(padding=[1, 2], mode=constant, value=2.5, data_format=NCL)"),
    (nn.ReflectionPad1D, ([2, 1],), X1, [1, 2, 7], 50.0, 246.0, None),
    (nn.ReplicationPad1D, (2,), X1, [1, 2, 8], 56.0, 288.0,
     "ReplicationPad1D(padding=[2, 2], mode=replicate, value=0.0, data_format=NCL)"),
    (nn.CircularPad1D, ([1, 3],), X1, [1, 2, 8], 56.0, 280.0, None),
    (nn.ZeroPad1D, ([0, 2],), X1, [1, 2, 6], 28.0, 140.0, None),
    (nn.ConstantPad2D, (1, -1.0), X2, [1, 1, 5, 5], 20.0, 220.0, None),
    (nn.ReflectionPad2D, ([1, 0, 2, 1],), X2, [1, 1, 6, 4], 108.0, 600.0, None),
    (nn.ReplicationPad2D, ([1, 0, 2, 1],), X2, [1, 1, 6, 4], 78.0, 444.0, None),
    (nn.CircularPad2D, ([1, 2, 0, 1],), X2, [1, 1, 4, 6], 78.0, 418.0, None),
    (nn.ConstantPad3D, ([1, 0, 0, 1, 1, 0], 3.0), X3, [1, 1, 3, 3, 4], 138.0, 722.0, None),
    (nn.ReflectionPad3D, ([1, 2, 1, 0, 1, 0],), X3, [1, 1, 3, 3, 6], 369.0, 3087.0, None),
    (nn.ReplicationPad3D, ([2, 0, 0, 1, 1, 1],), X3, [1, 1, 4, 3, 5], 336.0, 2580.0, None),
    (nn.CircularPad3D, ([1, 1, 1, 0, 0, 1],), X3, [1, 1, 3, 3, 5], 225.0, 1611.0,
     "CircularPad3D(padding=[1, 1, 1, 0, 0, 1], mode=circular, value=0.0, data_format=NCDHW)"),
    (nn.ZeroPad3D, (1,), X3, [1, 1, 4, 4, 5], 66.0, 506.0, None),
]


@pytest.mark.parametrize("layer,args,x,shape,total,squares,text", PADDLE, ids=[r[0].__name__ for r in PADDLE])
def test_pad_layers_match_paddle_and_convert(layer, args, x, shape, total, squares, text):
    m = layer(*args)
    out, _ = check_converted(m, x)
    assert list(out[0].shape) == shape
    assert (float(out[0].sum()), float((out[0] ** 2).sum())) == (total, squares)
    assert m.state_dict() == {} and (text is None or repr(m) == text)


def test_pad_gradients_and_layouts_match_paddle():
    # Paddle 3.3: x.grad of sum(layer(x) * arange(out.size).reshape(out.shape)), x = arange(8).reshape(1, 2, 4)
    for m, want in ((nn.ReflectionPad1D([2, 1]), [[2, 4, 10, 5], [9, 18, 31, 12]]),
                    (nn.CircularPad1D([1, 3]), [[6, 8, 10, 4], [22, 24, 26, 20]])):
        x = rt.to_tensor(X1, stop_gradient=False)
        y = m(x)
        (y * rt.arange(y.size, dtype="float32").reshape(y.shape)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy()[0], want)
    # channels last, and a circular pad wider than the dim (it wraps more than once), as Paddle
    nlc = nn.ReflectionPad1D([2, 1], data_format="NLC")(rt.to_tensor(X1.transpose(0, 2, 1)))
    np.testing.assert_array_equal(nlc.numpy().ravel()[:8], [2, 6, 1, 5, 0, 4, 1, 5])
    np.testing.assert_array_equal(nn.CircularPad1D([5, 1])(rt.to_tensor(X1)).numpy()[0, 0],
                                  [3, 0, 1, 2, 3, 0, 1, 2, 3, 0])


def test_pad_layers_save_load_and_onnx(tmp_path):
    def make():
        return nn.Sequential(nn.ReflectionPad2D([1, 0, 2, 1]), nn.CircularPad2D(1), nn.ConstantPad2D([0, 1, 1, 0], 0.5))
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype("float32")
    check_saved(make(), x, tmp_path)  # (to_static converts the layer it is given: a fresh one for ONNX)
    check_onnx(make(), x)


def test_pad_layer_errors():
    with pytest.raises(ValueError, match="ReflectionPad2D: padding must be an int or 4 ints"):
        nn.ReflectionPad2D([1, 2])
    with pytest.raises(ValueError, match="data_format"):
        nn.ZeroPad1D(1, data_format="NCHW")
    with pytest.raises(ValueError, match="expects a 3-D input"):
        nn.ReplicationPad1D(1)(rt.to_tensor(X2))
    with pytest.raises(ValueError, match="reflect padding"):
        nn.ReflectionPad1D([4, 1])(rt.to_tensor(X1))  # Paddle: the dim must exceed the pad


def _crop_pad(x):
    return rt.nn.functional.pad(x, [-1, 2], mode="circular", data_format="NCL")


def test_negative_padding_crops_as_paddle():
    # Paddle 3.3: F.pad(X1, [-1, 2], mode, value=5, data_format="NCL"), first row: the positive side pads the
    # original, then the negative side is cut away; the gradient skips the cut entries
    x = rt.to_tensor(X1, stop_gradient=False)
    for mode, want in (("constant", [1, 2, 3, 5, 5]), ("reflect", [1, 2, 3, 2, 1]), ("replicate", [1, 2, 3, 3, 3]),
                       ("circular", [1, 2, 3, 0, 1])):
        np.testing.assert_array_equal(rt.nn.functional.pad(x, [-1, 2], mode=mode, value=5.0,
                                                           data_format="NCL").numpy()[0, 0], want)
    rt.nn.functional.pad(x, [-1, 2], value=5.0, data_format="NCL").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [0, 1, 1, 1])
    grid = rt.to_tensor(np.arange(16, dtype="float32").reshape(1, 1, 4, 4))  # Paddle 3.3's ZeroPad2D on it:
    np.testing.assert_array_equal(nn.ZeroPad2D([-1, 1, 0, -2])(grid).numpy()[0, 0], [[1, 2, 3, 0], [5, 6, 7, 0]])
    check_converted(_crop_pad, X1)
