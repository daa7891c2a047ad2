"""Paddle's loop test patterns, continued from test_loops.py (test_break_continue.py): `break` and
`continue` at every position of `for` and `while` loops, under tensor and Python conditions, and
`for ... else` / `while ... else`."""
import numpy as np

import runtime as rt

from .helpers import check


# --- break / continue --------------------------------------------------------------------------

def continue_in_for(x):
    x = rt.to_tensor(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
        x += 10086
        x += i
    return x


def continue_in_for_at_end(x):
    x = rt.to_tensor(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
    return x


def continue_in_while(x):
    x = rt.to_tensor(x)
    i = rt.full([1], 0, "int32")
    while i < 10:
        i += 1
        if i > 5:
            continue
            x += 10086
        x += i.astype(x.dtype)
    return x


def break_in_for(x):
    x = rt.to_tensor(x)
    for i in range(10):
        x += 1
        if x > 5:
            break
            x += 10086
        x += i
    return x


def break_in_while(x):
    x = rt.to_tensor(x)
    i = rt.full([1], 0, "int32")
    while i < 10:
        i += 1
        if i > 5:
            break
        x += i.astype(x.dtype)
    return x


def break_continue_nested(x):
    x = rt.to_tensor(x)
    for i in range(1, 10, 1):
        for j in range(i):
            x += 1
            if j > 3:
                break
            x = x * 1
            if x > 20:
                continue
            x += 1
        if i > 6:
            break
    return x


def for_else_break(x):
    x = rt.to_tensor(x)
    for i in range(10):
        if x > 20:
            x = x - 1
            break
        x += 3
    else:
        x = x * 100
    return x


def while_else(x):
    x = rt.to_tensor(x)
    i = 0
    while i < 3:
        i += 1
    else:
        x = x + 1
    return x


def break_on_loop_tensor(x):
    i = rt.full([1], 0, "int64")
    while True:
        i += 1
        if i >= x:
            break
    return i


def test_continue_positions():
    for fn in (continue_in_for, continue_in_for_at_end, continue_in_while):
        check(fn, (np.array([1], "int64"),), (np.array([-20], "int64"),))


def test_break_positions():
    for fn in (break_in_for, break_in_while, break_continue_nested):
        check(fn, (np.array([1], "int64"),), (np.array([-20], "int64"),), (np.array([30], "int64"),))


def test_break_with_tensor_condition_in_while_true():
    check(break_on_loop_tensor, (np.array([3], "int64"),), (np.array([7], "int64"),), ops=["while"])


def test_for_else_with_tensor_break():
    check(for_else_break, (np.array([1], "int64"),), (np.array([30], "int64"),))


def test_while_else_with_python_condition():
    check(while_else, (np.array([1], "int64"),))


def optimised_break(x):
    x = rt.to_tensor(x)
    for i in range(10):
        if i > 5:
            break
        x += 1
        if x > 3:
            continue
        x = x * 2
    return x


def test_python_break_with_tensor_continue():
    check(optimised_break, (np.array([1], "int64"),), (np.array([-7], "int64"),), (np.array([9], "int64"),))
