"""Values that are Python or numpy scalars eagerly (items of `t.numpy()`, `float(t)`, an int divided)
meet tensors as Python numbers do in converted code too: the tensor's dtype wins."""
import numpy as np

import runtime as rt
from tests.compat.helpers import check


def _numpy_items(x, z):
    a = x.numpy()
    s = z * 1
    for v in a:  # numpy int64 scalars eagerly: an int32 sum stays int32
        s = s + v
    h = rt.full([2], 1.0, "float16")
    picked = z * a.item() if a.shape == [1] else z + a[-1]  # a numpy shape is a tuple: never == [1]
    return s, s * a[0], picked, h * float(x.sum()), h + a[0], h * (x.shape[0] / 2)


def _loop_to_numpy_item(x, z):
    s = z * 0
    for i in range(x.numpy().item()):
        s = s + i
    return s


def test_numpy_items_and_python_floats_take_the_tensor_dtype():
    check(_numpy_items, (np.array([1, 2, 3]), np.array([5], "int32")), (np.array([7]), np.array([5], "int32")),
          (np.array([1.5, 2.5]), np.array([5], "float32")))
    check(_loop_to_numpy_item, (np.array([4]), np.array([1], "int32")))
