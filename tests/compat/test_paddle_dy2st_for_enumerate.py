"""Scenarios of Paddle's test_for_enumerate, rewritten: `for` over `range(x.numpy()...)`, over
Python lists and tuples, over a tensor and its `.numpy()` (with `enumerate`, a start, `break` and
`continue`), over a list grown in a tensor loop, with tuple targets, in a Layer's forward, and
`zip` over tensors saved with an InputSpec. Converted results equal eager ones (values and dtypes)."""
import os

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import base

from .helpers import same

start_at = rt.tensor.fill_constant  # Paddle's (shape, dtype, value) order


def both(fn, *args):
    """``fn`` run eagerly and converted on the same raw arguments (numpy arrays stay arrays)."""
    eager = fn(*args)
    sf = dy2st.to_static(fn)
    same(eager, sf(*args))
    return sf


def sum_range_of_item(n):
    total = start_at([1], "int32", 0)
    n = base.dygraph.to_variable(n)
    for k in range(n.numpy().item()):
        total = total + k
    return total


def sum_range_first_with_break(n):
    total = start_at([1], "int32", 0)
    n = base.dygraph.to_variable(n)
    for k in range(n.numpy()[0]):
        total = total + k
        if k > 2:
            break
    return total


@pytest.mark.parametrize("fn", [sum_range_of_item, sum_range_first_with_break])
@pytest.mark.parametrize("n", [2, 5])
def test_range_over_a_value_read_with_numpy(fn, n):
    both(fn, np.array([n]))


def add_items(items):
    total = start_at([1], "int32", 0)
    for v in items:
        total = total + v
    return total


def add_items_and_positions(items):
    total = start_at([1], "int32", 0)
    for k, v in enumerate(items):
        total = total + v + k
    return total


@pytest.mark.parametrize("fn", [add_items, add_items_and_positions])
def test_python_list_argument(fn):
    both(fn, [1, 2, 3])


def literal_list():
    total = start_at([1], "int32", 0)
    for v in [4, 5, 6]:
        total = total + v
    return total


def literal_tuple():
    total = start_at([1], "int32", 0)
    for v in (4, 5, 6):
        total = total + v
    return total


@pytest.mark.parametrize("fn", [literal_list, literal_tuple])
def test_literal_sequences(fn):
    sf = both(fn)
    assert len(sf.program_cache) == 1


# the loops over `values.numpy()` / `values` (a tensor): enumerate, its start, break and continue
def over_numpy(values):
    total = start_at([1], "int32", 0)
    for v in base.dygraph.to_variable(values).numpy():
        total = total + v
    return total


def enumerate_numpy(values, start=0, stop_after=None, skip_after=None):
    count = start_at([1], "int32", 0)
    total = start_at([1], "int32", 0)
    values = base.dygraph.to_variable(values)
    for k, v in enumerate(values.numpy(), start):
        count = count + k
        if skip_after is not None and k > skip_after:
            continue
        total = total + v
        if stop_after is not None and k > stop_after:
            break
    return count, total


def over_tensor(values):
    total = start_at([1], "int32", 0)
    for v in base.dygraph.to_variable(values):
        total = total + v
    return total


def over_tensor_slice(values):
    total = start_at([1], "int32", 0)
    values = base.dygraph.to_variable(values)
    for v in values[0:]:
        total = total + v
    return total


def enumerate_tensor(values):
    count = start_at([1], "int32", 0)
    total = start_at([1], "int32", 0)
    for k, v in enumerate(base.dygraph.to_variable(values)):
        count = count + k
        total = total + v
    return count, total


def nested_range_of_items(values):
    total = start_at([1], "int32", 0)
    for k, v in enumerate(base.dygraph.to_variable(values)):
        for _ in range(v):
            total = total + v
    return total


VALUES = [np.array([1, 2, 3, 4, 5]), np.array([3, 0, 2])]


@pytest.mark.parametrize("values", VALUES, ids=["five", "three"])
@pytest.mark.parametrize("fn", [over_numpy, over_tensor, over_tensor_slice, enumerate_tensor,
                                nested_range_of_items])
def test_loops_over_an_array_argument(fn, values):
    both(fn, values)


@pytest.mark.parametrize("options", [(0, None, None), (1, None, None), (0, 2, None), (0, None, 2),
                                     (1, 2, None), (1, None, 2)],
                         ids=["plain", "start", "break", "continue", "start-break", "start-continue"])
def test_enumerate_numpy_variants(options):
    start, stop_after, skip_after = options
    for values in VALUES:
        both(enumerate_numpy, values, start, stop_after, skip_after)


def grown_then_summed(x, enumerate_it):
    x = base.dygraph.to_variable(x)
    steps = start_at([1], "int32", 5)
    grown = []
    for k in range(steps):
        grown.append(x + k)
    count = start_at([1], "int32", 0)
    total = start_at([1], "int32", 0)
    if enumerate_it:
        for k, v in enumerate(grown):
            count = count + k
            total = total + v
        return count, total
    for v in grown:
        total = total + v
    return total


@pytest.mark.parametrize("enumerate_it", [False, True])
def test_list_grown_in_a_tensor_loop_then_iterated(enumerate_it):
    sf = both(grown_then_summed, np.array([5]), enumerate_it)
    same(grown_then_summed(np.array([2]), enumerate_it), sf(np.array([2]), enumerate_it))


def row_columns(x):
    rows = rt.to_tensor(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))
    firsts, seconds, thirds = rt.zeros([3]), rt.zeros([3]), rt.zeros([3])
    for a, b, c in rows:
        firsts += a
        seconds += b
        thirds += c
    return firsts, seconds, thirds


def enumerate_pairs_by_index(x):
    x = rt.to_tensor(x)
    acc = rt.zeros([5])
    for pair in enumerate([x, x * 2, x * 3]):
        acc += pair[1]
    return acc


def enumerate_unpacking_items(x):
    x = rt.to_tensor(x)
    first, last = rt.zeros([1]), rt.zeros([1])
    for k, (a, b, c, d, e) in enumerate([x, x + 1, x + 2]):
        first += a
        last += e
    return first, last


@pytest.mark.parametrize("fn", [row_columns, enumerate_pairs_by_index, enumerate_unpacking_items])
def test_tuple_targets(fn):
    both(fn, np.array([1, 2, 3, 4, 5]))


class ClonesRows(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.high, self.low = 5, 3

    def forward(self, x):
        table = rt.zeros([10, 2, 3]) + x.astype("float32").sum()
        picked = []
        for k in range(self.high - self.low):
            picked.append(table[k].clone())
        return picked


def test_forward_building_a_list_with_a_python_range():
    net = ClonesRows()
    x = rt.to_tensor(np.array([1, 2, 3, 4, 5]))
    out = dy2st.to_static(net)(x)
    assert isinstance(out, list) and len(out) == 2
    same(ClonesRows()(x), out)


def zip_rows(x, y):
    total = x[0] * 0
    for a, b in zip(x, y):
        total = total + a * b
    return x + y, total


@pytest.mark.parametrize("spec_rows", [2, None])
def test_zip_over_tensors_saves(tmp_path, spec_rows):
    # Paddle refuses `zip` over a dim unknown until run time; here it becomes a loop like any other
    specs = [dy2st.InputSpec([spec_rows, 10]), dy2st.InputSpec([spec_rows, 10])]
    path = os.path.join(tmp_path, "zip_rows")
    dy2st.save(dy2st.to_static(zip_rows, input_spec=specs), path)
    loaded = dy2st.load(path)
    x = rt.to_tensor(np.arange(20, dtype="float32").reshape(2, 10))
    same(zip_rows(x, x), list(loaded(x, x)))


def list_in_a_dict_read_then_appended():
    feats = {"key": []}
    for k, idx in enumerate(rt.arange(0, 10)):
        if k > 1:
            second_last = feats["key"][-2]
        feats["key"].append(idx)
    return second_last


@pytest.mark.xfail(strict=True, raises=IndexError,
                   reason="the list (feats['key'], carried as a local around the tensor loop) is empty "
                          "when the loop starts and the body reads item [-2] before appending: the items' "
                          "dtype and shape cannot be learnt from it (an IndexError saying so at the line)")
def test_list_in_a_dict_grown_by_a_tensor_loop():
    both(list_in_a_dict_read_then_appended)
