"""full / full_like filled with a tensor value in converted code: no gradient reaches the value (the
Program's expand of it passed one, doubling x's gradient below), a bool value fills bool as eagerly,
and full_like takes a run-time value (it raised a numpy error)."""
import numpy as np

import dy2st
import runtime as rt
from dy2st import InputSpec

from tests.hunt.eager_checks import check, t


def _full(x):
    return (rt.full([2], x.sum()) * x).sum()


def _full_like(x):
    return (rt.full_like(x, x.sum()) * x).sum() + rt.full_like(x, x.shape[0]).sum()


def _bool_fills(x, n):
    flag = False
    for _ in range(n):  # a Python bool carried through a tensor loop
        flag = not flag
    return rt.full([2], x.sum() > 0), rt.full([2], flag), rt.full_like(x, x.sum() > 0)


def test_full_of_a_tensor_value_takes_no_gradient():
    check(_full, [(t([1.0, 2.0]),), (t([3.0, -1.0]),)], grad=True)


def test_full_like_of_a_run_time_value():
    sf = dy2st.to_static(_full_like, input_spec=[InputSpec([None], "float32", stop_gradient=False)])
    for v in ([1.0, 2.0], [3.0, -1.0, 5.0]):
        x = t(v)
        x.stop_gradient = False
        _full_like(x).backward()
        want = x.grad.numpy().copy()
        x.clear_gradient()
        out = sf(x)
        np.testing.assert_array_equal(out.numpy(), _full_like(x).numpy())
        out.backward()
        np.testing.assert_array_equal(x.grad.numpy(), want)
    assert len(sf.program_cache) == 1


def test_bool_values_fill_bool():
    check(_bool_fills, [(t([1.0, 2.0]), t(3, "int64")), (t([-1.0, -2.0]), t(2, "int64"))])
