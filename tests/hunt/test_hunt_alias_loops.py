"""Aliases of a tensor a tensor loop writes into and then rebinds, and item writes through a
container (`z[0][1] = v`): the converted function against eager, gradients included."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import check


def _write_then_rebind(x, n):
    y = x * 1
    z = y  # an alias made before the loop: eagerly it sees the first iteration's write only
    i = rt.zeros([], "int64")
    while i < n:
        y[0] = y[1] * 3.0
        y = y * 2
        i += 1
    return z, y


def _method_then_rebind(x, n):
    y = x * 1
    kept = [y]
    i = rt.zeros([], "int64")
    while i < n:
        y.multiply_(x)
        y = y + 1
        i += 1
    return kept[0], y


def _for_write_then_rebind(x):
    y = x * 1
    z = y
    for k in rt.arange(x.shape[0] // 2):
        y[k] = 0.5
        y = rt.concat([y[1:], y[:1]]) * 2
    return z + 0, y


def _nested_item_write(x):
    y = x * 1
    z = [y, x * 2]
    z[0][1] = 9.0
    z[1][0] += z[0][1]
    return y, z[1]


def _nested_item_write_in_branch(x):
    out = x * 0
    if x.sum() > 0:
        y = x * 3
        z = [y]
        z[0][0] = -1.0
        out = y
    return out


def _nested_item_write_from_outside(x):
    y = x * 1
    z = [y]
    if x.sum() > 0:
        z[0][0] = -1.0
    return y


@pytest.mark.parametrize("fn", [_write_then_rebind, _method_then_rebind])
def test_an_alias_before_a_tensor_loop_sees_the_first_iterations_write(fn):
    x = np.array([0.5, -1.0, 2.0, 3.0], "float32")
    # 0 iterations (the alias keeps the start value), 1 and 3: one Program serves every count
    sf = check(fn, *[(x + k, np.array([n], "int64")) for k, n in ((0, 0), (1, 1), (2, 3))], grad=True)
    assert len(sf.program_cache) == 1
    types = {op.type for blk in sf.program_cache.last().main_program.blocks for op in blk.ops}
    assert "while" in types and "where" in types


def test_a_tensor_for_loop_writing_then_rebinding_keeps_the_alias_exact():
    check(_for_write_then_rebind, np.arange(4, dtype="float32"), np.arange(6, dtype="float32") - 2,
          grad=True, ops=("while",))


def test_an_item_write_through_a_list_item_is_seen_by_every_holder():
    check(_nested_item_write, np.arange(4, dtype="float32"), np.ones(4, "float32"), grad=True)
    check(_nested_item_write_in_branch, np.arange(4, dtype="float32"), -np.arange(4, dtype="float32"),
          grad=True, ops=("cond",))


def test_an_item_write_through_a_list_into_an_outer_tensor_in_a_branch_is_refused_at_the_users_line():
    with pytest.raises(TypeError, match="made outside the branch or loop") as info:
        dy2st.to_static(_nested_item_write_from_outside)(rt.to_tensor(np.arange(3, dtype="float32")))
    where = notes(info.value)
    assert "test_hunt_alias_loops.py" in where and "z[0][0] = -1.0" in where
