"""`type(v)` and `isinstance(v, ...)` answer as eagerly: a traced tensor is an `rt.Tensor`, and a
range counter over a tensor bound (a Python int eagerly) is an `int`."""
import numpy as np

import runtime as rt
from tests.compat.helpers import arr, check


def _branches_on_types(x, n):
    a = x * (2 if type(x) == rt.Tensor else 3)  # noqa: E721  (user code writes it so)
    b = x * (2 if type(x) is rt.Tensor else 3)
    for i in range(n):
        if isinstance(i, int):
            a = a + 1
        if type(i) is int:
            b = b + 1
        if isinstance(i, rt.Tensor):
            a = a * 100
    return a, b


def test_type_and_isinstance_of_traced_values_match_eager():
    check(_branches_on_types, (arr(3), 2), (arr(3), np.array(2)), grad=True)
