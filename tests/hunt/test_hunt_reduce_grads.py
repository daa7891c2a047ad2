"""Reductions against Paddle 3: tied max/min share the gradient, cumsum of int32 is int64, the mean
gradient of an empty reduction is empty (it raised ZeroDivisionError)."""
import numpy as np

import dy2st
import runtime as rt


def _extremes(x):
    return x.max() + rt.max(x, axis=1).sum() + rt.min(x, axis=0, keepdim=True).sum()


def test_tied_max_and_min_split_the_gradient_eager_and_converted():
    v = np.array([[1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 3.0, 0.0]], "float32")
    # x.max(): 1/3 to each 3; max over axis 1: 1/2 to each 2 in row 0, 1/3 to each 3; min over axis 0: 1 each
    want = [[1.0, 1.0, 1.5, 0.5], [2 / 3, 2 / 3, 2 / 3, 1.0]]
    for fn in (_extremes, dy2st.to_static(_extremes)):
        x = rt.to_tensor(v, stop_gradient=False)
        fn(x).backward()
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


def test_nan_max_gives_nan_gradient():
    x = rt.to_tensor([1.0, np.nan], stop_gradient=False)
    with np.errstate(all="ignore"):
        x.max().backward()
    assert np.isnan(x.grad.numpy()).all()


def _cumsum(x):
    return rt.cumsum(x), x.cumsum(axis=0)


def test_int32_cumsum_is_int64_without_wrapping():
    x = rt.to_tensor(np.array([2**31 - 1, 1], "int32"))
    for outs in (_cumsum(x), dy2st.to_static(_cumsum)(x)):
        assert [o.dtype for o in outs] == ["int64", "int64"]
        assert outs[0].numpy().tolist() == [2**31 - 1, 2**31]


def _var(x):
    return rt.var(x, axis=1, unbiased=False).sum() + x.mean(axis=1).sum()


def test_empty_reduction_gradient_is_empty_eager_and_converted():
    for fn in (_var, dy2st.to_static(_var)):
        x = rt.to_tensor(np.zeros((0, 4), "float32"), stop_gradient=False)
        fn(x).backward()
        assert x.grad.shape == [0, 4]
