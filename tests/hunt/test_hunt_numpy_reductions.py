"""A reduction of `t.numpy()` in converted code is a numpy scalar eagerly, which meets a tensor
as a Python number does: `x * x.numpy().sum()` keeps x's int32 (it gave int64)."""
import numpy as np

from tests.compat.helpers import check


def _scaled(x):
    a = x.numpy()
    return x * a.sum(), x + a.max(), x * a.mean(), x * a.argmax()


def test_numpy_reductions_act_as_numpy_scalars():
    check(_scaled, (np.array([1, 2], "int32"),), (np.float32([0.5, 4.5, 1]),), (np.array([[1, 2], [3, 4]]),))
