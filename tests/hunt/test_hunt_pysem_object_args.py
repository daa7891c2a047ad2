"""A plain Python object given as an argument, whose attribute the converted function sets to a
computed tensor (`state.h = x * 2`). Eagerly the caller's object holds the value after every call;
converted, it silently kept a static Variable of the trace (no value; later calls left it alone).
Now a TypeError naming the function, the attribute and the argument, and the object is as it was.
Python values set on it, and tensors written into list/dict/dataclass arguments, work as before."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class _State:
    def __init__(self):
        self.steps = 0


def _write_tensor(x, state):
    state.h = x * 2
    return x + 1


def test_a_traced_tensor_set_on_an_object_argument_is_an_error():
    state = _State()
    with pytest.raises(TypeError, match="sets the attribute 'h' of the _State given at #1"):
        dy2st.to_static(_write_tensor)(rt.to_tensor([1.0]), state)
    assert vars(state) == {"steps": 0}


def _read_and_python_write(x, state):
    state.tag = "seen"
    return x * state.steps


def test_reading_an_object_argument_and_python_writes_still_convert():
    sf = dy2st.to_static(_read_and_python_write)
    for v, steps in ((1.0, 2), (3.0, 5)):
        a, b = _State(), _State()
        a.steps = b.steps = steps
        want = _read_and_python_write(rt.to_tensor([v]), a)
        np.testing.assert_array_equal(sf(rt.to_tensor([v]), b).numpy(), want.numpy())
        assert b.tag == "seen"
