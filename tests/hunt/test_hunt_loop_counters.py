"""A loop counter (or an unknown dim) that is a Python int eagerly keeps the dtype of the tensor it
meets, as a Python int does."""
import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _range_counter(x):
    z = rt.full([1], 1, "int32")
    b = rt.to_tensor([True, False])
    for i in range(x.shape[0]):
        z = ((z + i) * (i + 1) - i) // (i + 1) + (i | z) ** 2
        b = b + i
    return z, b, x.shape[0] + z


def _enumerate_counter(xa):
    y = rt.full([1], 0, "int32")
    for i, v in enumerate(xa, 1):
        y = y + i + v.astype("int32")
    return y


def test_counters_keep_the_int32_dtype_eager_gives():
    sf = check(_range_counter, (np.ones(3, "float32"),), (np.ones(1, "float32"),))
    sf2 = dy2st.to_static(_range_counter, input_spec=[dy2st.InputSpec([None], "float32")])
    x = rt.ones([4])
    for e, s in zip(_range_counter(x), sf2(x)):
        assert s.dtype == e.dtype and s.numpy().tolist() == e.numpy().tolist()
    assert sf(x)[0].dtype == "int32"
    check(_enumerate_counter, (np.array([3, 1, 2]),), (np.array([5]),))
