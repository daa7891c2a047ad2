"""`len(lst)` of a list built in a tensor loop and `x.size` of a tensor with unknown dims are
Python ints eagerly: `/` on them divides truly and a float tensor times them stays float (they
were int64 Program values: `len(a) / 2` gave 1.0 where eager gives 1.5)."""
import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import check, same


def _len_of_built_list(x, n):
    a = []
    for i in range(n):
        a.append(x * (i + 1))
    k = len(a)
    return k / 2, k // 2, x * k, x / k, k * 1.5


def _size(x):
    k = x.size
    return k / 4, x * (k / 4), k // 4


def test_lengths_and_sizes_act_as_python_ints():
    check(_len_of_built_list, (np.float32([1, 2]), np.array(3)), (np.array([1, 2], "int32"), np.array(5)))
    sf = dy2st.to_static(_size, input_spec=[dy2st.InputSpec([None, 2], "int32")])
    for n in (3, 4):
        x = rt.to_tensor(np.arange(2 * n, dtype="int32").reshape(n, 2))
        same(_size(x), sf(x))
