"""Clocks read in converted code (`time.time()`, `time.perf_counter()`, `datetime.now()`, also in a
helper it calls): they ran once, while the Program was built, and every call reused that time. They
are refused at the user's line, as Python/numpy random draws are; so is a clock read only for a
printed duration (the Program would print the trace's duration at every call). Timing from outside
the converted function, or full_graph=False, works."""
import datetime
import time
from datetime import datetime as DateTime
from time import perf_counter

import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes


def _stamp(x):
    return x + time.time()


def _counter(x):
    return x * perf_counter()


def _now(x):
    return x * DateTime.now().second


def _module_now(x):
    return x * datetime.datetime.now().microsecond


def _helper():
    return time.monotonic()


def _through_helper(x):
    return x + _helper()


def _printed_duration(x):
    t0 = time.time()
    y = x * 2
    print("took", time.time() - t0)
    return y


@pytest.mark.parametrize("fn, line", [(_stamp, "return x + time.time()"), (_counter, "return x * perf_counter()"),
                                      (_now, "DateTime.now().second"), (_module_now, "datetime.datetime.now()"),
                                      (_through_helper, "return time.monotonic()"),
                                      (_printed_duration, "t0 = time.time()")])
def test_clock_reads_are_refused_at_the_users_line(fn, line):
    with pytest.raises(TypeError, match="reads the clock") as info:
        dy2st.to_static(fn)(rt.ones([2]))
    where = notes(info.value)
    assert "test_hunt_clock_reads.py" in where and line in where



def test_full_graph_false_runs_it_eagerly():
    sf = dy2st.to_static(_printed_duration, full_graph=False)
    with pytest.warns(UserWarning, match="could not be converted"):
        out = sf(rt.ones([2]))
    np.testing.assert_array_equal(out.numpy(), [2.0, 2.0])
