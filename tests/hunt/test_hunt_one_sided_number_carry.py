"""`best = 0` (or `s = 0`) before a tensor loop and `if x[i] > best: best = x[i]` inside it, a running
max or a sum of the positive entries: eagerly the int becomes a float tensor on the path that sets
it. The `if` refused to merge the loop's int carry with the float tensor ("branches disagree"); the
int is now cast to the tensor's dtype there, and the loop carries a float tensor, as eager code
holds after the first such step (if no step takes that path, eager returns the int 0 and the
Program a float 0.0: the value agrees, not the kind)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import t


def _sum_positive(x):
    s = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i]
    return s


def _running_max(x):
    best = 0
    i = 0
    while i < x.shape[0]:
        if x[i] > best:
            best = x[i]
        i += 1
    return best


@pytest.mark.parametrize("fn", [_sum_positive, _running_max])
def test_an_int_carry_a_branch_makes_a_float_tensor(fn):
    sf = dy2st.to_static(fn, input_spec=[dy2st.InputSpec([None], "float32")])
    for arr in ([1.0, -2.0, 3.0], [-1.0, -2.0], [0.5, 0.25, 4.0, -1.0]):
        x = t(arr)
        want, got = fn(x), sf(x)
        np.testing.assert_array_equal(np.asarray(got.numpy()), np.asarray(float(want), "float32"))
    assert len(sf.program_cache) == 1
    x = rt.to_tensor(np.array([0.5, -0.25, 4.0], "float32"), stop_gradient=False)
    fn(x).backward()
    eager = x.grad.numpy().copy()
    x.clear_gradient()
    sf(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), eager)
