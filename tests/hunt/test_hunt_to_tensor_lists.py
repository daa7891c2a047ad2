"""`rt.to_tensor([n, n + 1])` with run-time items (an unknown dim) in converted code: the items
stacked, with the dtype eager gives, instead of a TypeError about object data."""
import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import same


def _sizes(x):
    n = x.shape[0]
    return rt.to_tensor([n, n + 1]), rt.to_tensor([[n, 2], [3, n]], dtype="float32"), rt.to_tensor([x.sum(), 1.5])


def test_lists_with_run_time_items_become_tensors():
    sf = dy2st.to_static(_sizes, input_spec=[dy2st.InputSpec([None])])
    for n in (2, 5):
        x = rt.to_tensor(np.ones(n, "float32"))
        same(_sizes(x), sf(x))
