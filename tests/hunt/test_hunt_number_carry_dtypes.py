"""A Python number carried through a tensor loop that the body makes a genuine tensor
(`s = 0` then `s = s + t`) holds `t`'s dtype after the first iteration, as eagerly: a float64 `t`
kept float64 (it was cast to float32 after the loop), a float16 one float16 (not the default float
dtype), a uint8/int8/int32 one its own dtype and wrap-around (not int64), and an int start that
became a float32 tensor no longer meets a float16 tensor as a Python float would. The same for a
number in a dict slot or a Layer attribute the loop rebinds."""
import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _int_start(x, n):
    s = 0
    for _ in range(n):
        s = s + x
    return s


def _float_start(x, n):
    s = 0.5
    i = 0
    while i < n:
        s = s * x
        i += 1
    return s


def _then_half(x, h, n):
    s = 0
    for _ in range(n):
        s += x
    return s * h


def _dict_slot(x, n):
    d = {"s": 0}
    for _ in range(n):
        d["s"] = d["s"] + x
    return d["s"]


class _Total(rt.nn.Layer):
    def forward(self, x, n):
        self.total = 0
        for _ in range(n):
            self.total = self.total + x
        return self.total


def test_number_slots_of_dicts_and_layers_take_the_tensor_dtype():
    n = rt.to_tensor(3)
    for x in (np.array([0.1, 1 / 3]), np.array([200, 100], "uint8")):
        x = rt.to_tensor(x)
        for eager, static in ((_dict_slot(x, n), dy2st.to_static(_dict_slot)(x, n)),
                              (_Total()(x, n), dy2st.to_static(_Total())(x, n))):
            assert static.dtype == eager.dtype
            np.testing.assert_array_equal(static.numpy(), eager.numpy())


def test_number_carries_take_the_tensor_dtype_the_body_makes():
    n = np.array(3)
    check(_int_start, (np.array([0.1, 1 / 3]), n), (np.array([200, 100], "uint8"), n),
          (np.array([100, -7], "int8"), n), (np.array([2**30, 5], "int32"), n),
          (np.array([0.1, 1 / 3], "float16"), n), rtol=0, atol=0)
    check(_int_start, (np.array([0.1, 1 / 3]), n), grad=True, rtol=0, atol=0)
    check(_float_start, (np.array([0.1, 1 / 3], "float16"), n), (np.array([0.1, 1 / 3]), n), rtol=0, atol=0)
    check(_then_half, (np.array([1.1, 2.2], "float32"), np.array([1, 3], "float16"), np.array(2)), rtol=0, atol=0)
