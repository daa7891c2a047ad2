"""A list built in a tensor-dependent loop is one stacked tensor: it keeps the value each item had
when it was appended. Eagerly the list holds the tensor itself, so an in-place write into it later
(`h[0] = row` in the next iteration, `h.add_(...)` after the append, `outs[1][0] = v`, a write
through `y = outs[0]` or into the items a later `for item in outs` walks) changes the list's item too; the Program's list gave the old
values, silently. Such writes are refused at the user's line; appending a copy, or writing before
the append into a tensor the loop then rebinds, keeps working."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.hunt.eager_checks import same


def _later_iteration(x):
    h = x * 1.0
    outs = []
    for row in x:
        h[0] = row
        outs.append(h)
    return rt.stack(outs)


def _after_append(x):
    outs = []
    for row in x:
        h = x * row
        outs.append(h)
        h.add_(rt.ones_like(h))
    return rt.stack(outs)


def _after_loop(x):
    h = x * 1.0
    outs = []
    for row in x:
        outs.append(h)
    h[0] = 7.0
    return rt.stack(outs)


def _item_read(x):
    outs = [x * 1.0]
    for row in x:
        outs.append(x * row)
    y = outs[0]
    y[0] = 100.0
    return outs[0]


def _nested_subscript(x):
    outs = [x * 1.0]
    for row in x:
        outs.append(x * row)
    outs[1][0] = 100.0
    return outs[1]


def _stacked_at_start(x):
    h = x * 1.0
    outs = [h]
    for row in x:
        outs.append(x * row)
        h[0] = row
    return rt.stack(outs)


def _walked_after(x):
    outs = []
    for row in x:
        outs.append(x * row)
    for i, item in enumerate(outs):  # eagerly the list's own tensors
        item[0] = 5.0
    return rt.stack(outs)


class _Buffered(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("h0", rt.zeros([3]))

    def forward(self, x):
        hs = [self.h0]  # eagerly the buffer itself, which set_value then changes
        for row in x:
            hs.append(hs[-1] + row)
        self.h0.set_value(hs[-1])
        return rt.stack(hs)


def _copies(x):
    h = x * 1.0
    outs = []
    for row in x:
        h[0] = row
        outs.append(h.clone())
        g = h * 2
        g[1] = row  # written before the append, then a new tensor each iteration
        outs.append(g)
    return rt.stack(outs)


def _item_replaced(x):
    outs = [x * 0]
    for row in x:
        outs.append(x * row)
    h = x * 2
    outs[0] = h  # the list's item is h itself, eagerly
    h.add_(rt.ones_like(h))
    return rt.stack(outs)


@pytest.mark.parametrize("fn", [_later_iteration, _after_append, _after_loop, _item_read, _nested_subscript,
                                _stacked_at_start, _walked_after, _item_replaced])
def test_writes_into_items_of_a_stacked_list_are_refused(fn):
    with pytest.raises(TypeError, match="list built in a tensor-dependent loop holds") as info:
        dy2st.to_static(fn)(rt.to_tensor(np.array([1.0, -2.0, 3.0], "float32")))
    assert "test_hunt_loop_list_item_writes.py" in "".join(info.value.__notes__)


def test_a_buffer_stacked_into_such_a_list_then_set_is_refused():
    with pytest.raises(TypeError, match="list built in a tensor-dependent loop holds"):
        dy2st.to_static(_Buffered())(rt.to_tensor(np.ones((2, 3), "float32")))


def test_copies_and_writes_before_the_append_match_eager():
    x = rt.to_tensor(np.array([1.0, -2.0, 3.0], "float32"))
    same(_copies(x), dy2st.to_static(_copies)(x))
