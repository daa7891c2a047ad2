"""Eager kernels that numpy would make silently wrong: integer floor division by zero, out-of-range axes.
(Integer true division gives float32 inf/nan, as in Paddle 3: test_hunt_int_divide.)"""
import numpy as np
import pytest

import dy2st
import runtime as rt


@pytest.mark.parametrize("expr", ["a // z", "a % z", "a // 0", "a % 0"])
def test_integer_division_by_zero_raises(expr):
    names = {"a": rt.to_tensor([-7, 7, 0, 3]), "z": rt.to_tensor([1, 0, 1, 1])}
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        eval(expr, {}, names)


def test_integer_division_without_zero_keeps_python_signs():
    a = rt.to_tensor([-7, 7, 0, 3])
    b = rt.to_tensor([2, -2, 3, -3])
    np.testing.assert_array_equal((a // b).numpy(), np.array([-7, 7, 0, 3]) // np.array([2, -2, 3, -3]))
    np.testing.assert_array_equal((a % b).numpy(), np.array([-7, 7, 0, 3]) % np.array([2, -2, 3, -3]))


def test_float_division_by_zero_stays_ieee():
    with np.errstate(divide="ignore"):
        out = rt.to_tensor([1.0, -1.0]) / 0
    assert out.numpy().tolist() == [np.inf, -np.inf]


def _floordiv(a, b):
    return a // b


def test_converted_integer_division_by_zero_raises():
    sf = dy2st.to_static(_floordiv)
    a = rt.to_tensor([-7, 7])
    np.testing.assert_array_equal(sf(a, rt.to_tensor([2, -2])).numpy(), [-4, -4])
    with pytest.raises(ZeroDivisionError):
        sf(a, rt.to_tensor([2, 0]))


@pytest.mark.parametrize("expr", ["x.sum(axis=3)", "x.mean(axis=-4)", "x.max(axis=3)", "x.min(axis=[0, 3])",
                                  "rt.prod(x, axis=3)", "rt.all(x > 0, axis=3)", "rt.any(x > 0, axis=-4)"])
def test_reduction_axis_out_of_range_raises_not_wraps(expr):
    names = {"rt": rt, "x": rt.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4))}
    with pytest.raises(ValueError, match="out of range"):
        eval(expr, names)


def test_reduction_negative_axes_keepdim():
    v = np.arange(24, dtype="float32").reshape(2, 3, 4)
    x = rt.to_tensor(v)
    np.testing.assert_array_equal(x.sum(axis=[-1, 0], keepdim=True).numpy(), v.sum(axis=(0, 2), keepdims=True))
