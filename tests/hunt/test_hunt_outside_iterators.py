"""`next(it)` in converted code of an iterator made outside the call (a global, a closure variable,
a Layer attribute, an argument): it ran once, while the Program was built, and every call reused
that item (a training step on one batch forever). It is refused at the user's line, as is `next` inside
a tensor `if` or loop of one made before it (each branch is built once, whatever the condition);
iterators the converted code makes itself (`next(iter(d))`, one used in a Python loop) still work."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes

BATCHES = iter([1.0, 2.0, 3.0, 4.0])
SCALES = {"a": 2.0, "b": 3.0}


def _global(w):
    return w * next(BATCHES)


def _argument(w, it):
    return w * next(it)


def _closure():
    it = iter([1.0, 2.0])

    def step(w):
        return w * next(it)
    return step


class _Feeder(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.stream = iter([1.0, 2.0])

    def forward(self, w):
        return w * next(self.stream)


def _made_inside(x):
    it = iter([1.0, 2.0, 3.0, 4.0])
    a = next(it) * SCALES[next(iter(SCALES))]
    for _ in range(2):  # a Python loop: each item taken as eagerly
        a = a + next(it)
    if x.sum() > 0:
        a = a + next(iter([5.0]))  # made in the branch
    return x * a + next(it, 10.0)


def _in_tensor_branch(x):
    it = iter([1.0, 2.0])
    if x.sum() > 0:  # built for both outcomes: the item taken would not follow the condition
        x = x + next(it)
    return x * next(it)


@pytest.mark.parametrize("fn, args, line", [
    (_global, (), "return w * next(BATCHES)"),
    (_argument, (iter([1.0, 2.0]),), "return w * next(it)"),
    (_closure(), (), "return w * next(it)"),
    (_Feeder(), (), "return w * next(self.stream)"),
    (_in_tensor_branch, (), "x = x + next(it)")])
def test_next_of_an_outside_iterator_is_refused(fn, args, line):
    with pytest.raises(TypeError, match="made (outside the converted function|before a tensor-dependent)") as info:
        dy2st.to_static(fn)(rt.ones([2]), *args)
    where = notes(info.value)
    assert "test_hunt_outside_iterators.py" in where and line in where


def test_iterators_made_inside_work():
    sf = dy2st.to_static(_made_inside)
    for v in ([1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]):
        x = rt.to_tensor(np.array(v, "float32"))
        np.testing.assert_array_equal(sf(x).numpy(), _made_inside(x).numpy())
    assert len(sf.program_cache) == 1
