"""Paddle's layout and device methods of a CPU tensor (test_contiguous.py, test_get_device.py):
`x.contiguous()` is `x` itself, `x.is_contiguous()` is True and `x.get_device()` is -1, eagerly
and in converted code, gradients flowing through."""
import runtime as rt
from tests.compat.helpers import arr, check


def _layout(x):
    y = x.transpose([1, 0]).contiguous()
    assert y.is_contiguous()
    return y * 2, x.get_device()


def test_device_and_layout_methods():
    check(_layout, (arr(2, 3),), (arr(4, 1, seed=1),), grad=True)
    x = rt.ones([2])
    assert x.contiguous() is x and x.get_device() == -1
