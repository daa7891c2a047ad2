"""`isinstance(t.item(), float)`, `type(float(t)) is float`, `isinstance(t.numpy(), np.ndarray)`:
eagerly a Python float and a numpy array; converted, the marked Python float and the numpy value
counted as Tensors, so a branch on the check silently took the other side. A value that is a Python
int on one path and a tensor on another has no single answer: a TypeError at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.error_helpers import line_of, notes


def _checks(x):
    hits = 0
    if isinstance(x.sum().item(), float):
        hits += 1
    if type(float(x[0])) is float:
        hits += 2
    if isinstance(x.numpy(), np.ndarray):
        hits += 4
    if isinstance(x.max().item(), rt.Tensor) or isinstance(x.numpy(), rt.Tensor):
        hits += 8
    if isinstance(x, rt.Tensor) and type(x.shape[0]) is int and isinstance(int(x[0]), int):
        hits += 16
    return x * hits


def test_python_numbers_and_numpy_values_have_their_eager_types():
    sf = dy2st.to_static(_checks)
    for v in ([1.0, 2.0], [3.0, -1.5]):
        x = rt.to_tensor(v)
        np.testing.assert_array_equal(sf(x).numpy(), _checks(x).numpy())
        assert _checks(x).numpy()[0] == v[0] * 23
    assert len(sf.program_cache) == 1


def _mixed(x):
    n = 2
    if x.sum() > 0:
        n = x.shape[0] * rt.to_tensor(1)
    return x * (3 if isinstance(n, int) else 5)


def test_python_int_or_tensor_by_path_is_an_error_at_the_users_line():
    with pytest.raises(TypeError, match="Python int on some paths") as info:
        dy2st.to_static(_mixed)(rt.to_tensor([1.0, 2.0]))
    assert f"line {line_of(_mixed, 'isinstance(n, int)')}" in str(info.value) + notes(info.value)
