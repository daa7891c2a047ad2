"""`paddle.tensor.fill_constant(shape, dtype, value)` as Paddle's dy2st tests call it (test_list.py,
test_loop.py, ifelse_simple_func.py): `rt.full` with Paddle's argument order, the value cast to the
dtype as Paddle does (2.7 -> 2 as int32), usable as a loop bound and with a run-time shape."""
import numpy as np

import runtime as rt
from tests.compat.helpers import arr, check


def _loop(x, n):
    n = rt.tensor.fill_constant(shape=[1], value=n, dtype="int32")
    out = []
    for i in range(n):  # a tensor bound: a while op
        out.append(x + i)
    ones = rt.tensor.fill_constant(x.shape, "float32", 2.7)
    return rt.concat(out), ones, rt.tensor.fill_constant([2], "int64", -1.5)


def test_fill_constant_values_and_in_converted_code():
    assert rt.tensor.fill_constant([1], "int32", 2.7).numpy().tolist() == [2]
    assert rt.tensor.fill_constant([], "bool", 1).numpy().tolist() is True
    out = rt.zeros([2])
    assert rt.tensor.fill_constant([2], "float32", 5.0, out=out) is out and out.numpy().tolist() == [5.0, 5.0]
    check(_loop, (arr(2, 3), 3), (arr(1, 3, seed=1), 1), grad=True)
    assert np.allclose(_loop(rt.ones([1, 2]), 2)[1].numpy(), 2.7)
