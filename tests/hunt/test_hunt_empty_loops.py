"""`for r in x` (and enumerate/zip of tensors) where x has a known first dim of 0: eagerly the body
never runs; the converted loop traced its body with row 0 of x and failed to build. The loop is
left out (the shape is part of the cache key), and the `else` clause still runs."""
import numpy as np

from tests.compat.helpers import check


def _rows_else(x, w):
    s = w * 1
    for r in x:
        s = s + r * w
    else:
        s = s * 2
    return s


def _enumerate_break(x, w):
    s = w * 1
    for i, r in enumerate(x):
        if r.sum() > 0:
            break
        s = s + r * i
    return s


def _zip(x, w):
    s = w * 1
    for a, b in zip(x, x * 2):
        s = s + a * b * w
    return s


def test_loops_over_tensors_without_rows_run_zero_times():
    w = np.array([1.0, -2.0], "float32")
    for fn in (_rows_else, _enumerate_break, _zip):
        check(fn, (np.zeros((0, 2), "float32"), w), grad=True)
        check(fn, (np.arange(6, dtype="float32").reshape(3, 2) - 3, w), grad=True, ops=("while",))
