"""`x[[i, i + 1]]` (and `y[[i, 2]] = v`) with `i` a tensor loop's counter: the list of run-time
ints was handed to numpy as objects and the trace failed with "dtype 'object' is not supported";
it is now stacked into an int64 index as eager's list of Python ints is."""
from tests.hunt.eager_checks import check, t


def _pairs(x, n):
    s = x[0] * 0
    y = x * 1
    for i in range(n):
        s = s + x[[i, i + 1]].sum()
        y[[i, 3]] = s
    return s + y.sum()


def test_list_indices_holding_loop_counters():
    check(_pairs, [(t([1.0, 2.0, 3.0, 4.0]), t(n, "int64")) for n in (0, 1, 3)], grad=True)
