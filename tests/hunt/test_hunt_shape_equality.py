"""`x.shape == y.shape` with dims unknown until run time compares the run-time dims (a bool tensor,
so a tensor `if` can branch on it); known dims, lengths and tuples answer as Python does."""
import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import same


def _compare_shapes(x, y):
    same_shape = x.shape == y.shape
    if x.shape != y.shape:
        z = x * 2
    else:
        z = x + y
    return same_shape, z, x.shape == [3, 2], x.shape == (3, 2), x.shape == [3, 2, 1]


def test_shape_equality_of_unknown_dims_is_decided_per_call():
    sf = dy2st.to_static(_compare_shapes, input_spec=[dy2st.InputSpec([None, 2])] * 2)
    for n, m in ((3, 3), (3, 4), (1, 1)):
        x, y = rt.to_tensor(np.ones((n, 2), "float32")), rt.to_tensor(np.ones((m, 2), "float32"))
        same(_compare_shapes(x, y), sf(x, y))
