"""Scenarios of Paddle's test_tensor_memcpy_on_cpu (and _on_gpu on a CPU-only build): ``x.cpu()``
inside converted code keeps values and the CPU place; ``x.cuda(...)`` raises Paddle's ValueError
eagerly and converted, after warning about the ``device_id``/``blocking`` it would ignore."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import arr, check


def tensor_copy_to_cpu(x):
    x = rt.to_tensor(x)
    y = x.cpu()
    return y


def tensor_copy_to_cuda_with_warning(x, device_id=None, blocking=True):
    x = rt.to_tensor(x)
    y = x.cuda(device_id, blocking)
    return y


def test_copy_to_cpu_keeps_values_place_and_gradients():
    check(lambda x: x.cpu() * 2.0, (arr(1, 2, 3),), (arr(2, 3, seed=1),), grad=True)
    x1 = rt.ones([1, 2, 3])
    e, s = tensor_copy_to_cpu(x1), dy2st.to_static(tensor_copy_to_cpu)(x1)
    np.testing.assert_array_equal(s.numpy(), e.numpy())
    assert x1.place.is_cpu_place() and e.place.is_cpu_place() and s.place.is_cpu_place()


@pytest.mark.parametrize("kw,warned", [
    ({}, []),
    ({"device_id": 1, "blocking": True}, ["device_id"]),
    ({"device_id": None, "blocking": False}, ["blocking"]),
    ({"device_id": 2, "blocking": False}, ["device_id", "blocking"]),
])
def test_copy_to_cuda_without_gpu_warns_then_raises_like_paddle(kw, warned):
    x1 = rt.ones([1, 2, 3])
    for fn in (tensor_copy_to_cuda_with_warning, dy2st.to_static(tensor_copy_to_cuda_with_warning)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="No available device found"):
                fn(x1, **kw)
        msgs = [str(m.message) for m in w if issubclass(m.category, UserWarning)]
        assert msgs == [f"{name} is not supported, and it will be ignored." for name in warned]
