"""Paddle's loop test patterns (test_loop.py, test_break_continue.py, test_for_enumerate.py):
tensor `while` conditions mixing `and`/`or`, Python loops untouched, `None` carried through a loop,
object attributes as loop state, `for` over `range(tensor)`, over a tensor, `enumerate`/`zip`,
tuple targets, nested loops (`break`/`continue` and `for ... else` are in
test_loops_break_continue.py)."""
import numpy as np
import pytest

import dy2st
import runtime as rt

from .helpers import arr, check

T = [rt.to_tensor(v) for v in (0, 2, 5)]


def while_from_tensor(x):
    i = rt.to_tensor(x)
    while x < 10:
        i = i + x
        x = x + 1
    return i


def test_while_on_the_argument_itself():
    check(while_from_tensor, (np.array([3], "int64"),), (np.array([9], "int64"),),
          (np.array([12], "int64"),), ops=["while"], programs=1)


def python_while(x):
    i = 1
    a = 0
    while i < 10:
        a = a + i
        i += 1
    return x + a


def test_python_while_stays_python():
    sf = check(python_while, (arr(2),))
    assert "while" not in {op.type for op in sf.program_cache.last().main_program.global_block().ops}


def while_carrying_none(x):
    i = rt.to_tensor(x)
    a = None
    while x < 10:
        i = i + x
        x = x + 1
    return i, a


def test_loop_with_a_none_variable():
    check(while_carrying_none, (np.array([4], "int64"),), (np.array([11], "int64"),))


def while_bool_ops(x):
    i = rt.to_tensor(x)
    while x <= -1 or x < 10 or i > 50:
        i = i + x
        x = x + 1
    while (x > 0 and x < 30) and i < 100:
        i = i * 2
        x = x + 7
    return i, x


def test_while_condition_with_and_or():
    check(while_bool_ops, (np.array([3], "int64"),), (np.array([-5], "int64"),),
          (np.array([40], "int64"),), ops=["while"])


class Holder:
    def __init__(self):
        self.a = 1
        self.b = 2
        self.c = 5


def while_on_object_attributes(x):
    foo = Holder()
    i = rt.to_tensor(x)
    while i < 10:
        foo.b = rt.zeros([1], "float32") + foo.c
        i += 1
    return foo.b + i.astype("float32")


def for_on_object_attributes(x):
    foo = Holder()
    for i in range(x):
        foo.b = foo.b + rt.ones([1], "float32")
    return foo.b


def test_object_attribute_as_loop_state():
    check(while_on_object_attributes, (np.array([3], "int64"),), (np.array([12], "int64"),))
    check(for_on_object_attributes, *[(t,) for t in T], ops=["while"], programs=1)


def shape_in_loop_body(x):
    a = rt.zeros([1], "float32")
    i = rt.to_tensor(x)
    while i < 10:
        a += a.shape[0]
        i += 1
    return a


def test_shape_read_inside_while():
    check(shape_in_loop_body, (np.array([3], "int64"),), (np.array([10], "int64"),))


def for_range_tensor_bound(max_len):
    ret = rt.zeros([1], "int64")
    for i in range(max_len):
        ret = ret + i
    return ret


def for_range_start_stop_step(n):
    s = rt.zeros([1], "float32")
    for i in range(1, n, 2):
        s = s + i * 0.5
    return s


def test_for_range_with_a_tensor_bound():
    check(for_range_tensor_bound, *[(t,) for t in T], ops=["while"], programs=1)
    check(for_range_start_stop_step, *[(t,) for t in T], ops=["while"], programs=1)


def nested_for(x):
    s = rt.zeros([1], "float32")
    for i in range(x):
        for j in range(3):
            s = s + 1.0
        for k in range(i):
            s = s * 1.5
    return s


def test_nested_for_loops():
    check(nested_for, *[(t,) for t in T], ops=["while"], programs=1)


def var_created_in_for(x):
    for i in range(x):
        ret = rt.full([1], 7, "int64") + i
    return ret


def test_variable_first_created_in_loop_zero_trips_is_an_error_like_eager():
    # Eager raises UnboundLocalError; the Program checks at run time that the loop ran (an
    # `assert` op), so the zero placeholder the loop starts from never comes back as a value.
    with pytest.raises(UnboundLocalError):
        var_created_in_for(T[0])
    sf = dy2st.to_static(var_created_in_for)
    np.testing.assert_array_equal(sf(T[1]).numpy(), var_created_in_for(T[1]).numpy())
    with pytest.raises(AssertionError, match="UnboundLocalError: 'ret' is assigned only inside"):
        sf(T[0])
    assert len(sf.program_cache) == 1


def test_variable_first_created_in_loop_with_trips():
    check(var_created_in_for, (T[1],), (T[2],))


def iterate_tensor(x):
    z = rt.zeros([3], "float32")
    for row in x:
        z = z + row
    return z


def enumerate_tensor(x):
    z = rt.zeros([3], "float32")
    for i, row in enumerate(x):
        z = z + row * i
    return z


def enumerate_start(x):
    z = rt.zeros([3], "float32")
    for i, row in enumerate(x, 2):
        z = z + row * i
        if i > 3:
            break
    return z


def zip_tensors(x, y):
    z = rt.zeros([3], "float32")
    for a, b in zip(x, y):
        z = z + a * b
    return z


def test_iterating_tensors_enumerate_zip():
    for fn in (iterate_tensor, enumerate_tensor, enumerate_start):
        check(fn, (arr(4, 3),), (arr(6, 3, seed=2),), grad=True)
    check(zip_tensors, (arr(4, 3), arr(4, 3, seed=3)), grad=True)


def tuple_target_rows(x):
    s = rt.zeros([1], "float32")
    for a, b in x:
        s = s + a * b
    return s


def tuple_target_enumerate(x):
    s = rt.zeros([1], "float32")
    for i, (a, b) in enumerate(x):
        s = s + a * b + i
    return s


def test_tuple_targets_over_2d_rows():
    check(tuple_target_rows, (arr(5, 2),), grad=True)


def test_nested_tuple_target_in_enumerate():
    check(tuple_target_enumerate, (arr(5, 2),), grad=True)


def iterate_python_list(x):
    outs = []
    for t in [x, x * 2, x + 1]:
        outs.append(rt.sum(t))
    for i, t in enumerate((x, -x)):
        outs.append(t.mean() * i)
    return outs


def test_iterating_python_lists_and_tuples_unrolls():
    check(iterate_python_list, (arr(3, 2),), grad=True)


def iterate_with_nested_range(x):
    s = rt.zeros([1], "int64")
    for i, v in enumerate(x):
        for j in range(i):
            s = s + v
    return s


def test_enumerate_with_an_inner_range_of_the_index():
    check(iterate_with_nested_range, (np.arange(4).astype("int64"),),
          (np.array([3, -1, 7, 2, 5], "int64"),))


def sum_rows_from_zero(x, n):
    s = 0
    for i in range(n):
        s = s + x[i]
    return s


def test_python_zero_accumulating_tensor_rows_in_tensor_loop():
    # `s` starts as a Python int and becomes a float [3] row after the first iteration.
    x = arr(5, 3)
    sf = check(sum_rows_from_zero, (x, rt.to_tensor(2)), (x, rt.to_tensor(5)), grad=True,
               ops=["while"], programs=1)
    out = sf(rt.to_tensor(x), rt.to_tensor(0))  # zero trips: the number 0 filled to the row shape
    np.testing.assert_array_equal(out.numpy(), np.zeros(3, "float32"))


def python_list_indexed_by_tensor_counter(x, n):
    ws = [x * 1.0, x * 2.0, x * 3.0]
    y = rt.zeros_like(x)
    for i in range(n):
        y = y + ws[i]
    return y


@pytest.mark.xfail(strict=True, raises=TypeError, reason="a Python list of tensors indexed by the counter of a tensor "
                   "`for` (ws[i], i a Variable): TypeError: list indices must be integers or slices; "
                   "stack the list first (rt.stack(ws)[i])")
def test_python_list_indexed_by_a_tensor_loop_counter():
    check(python_list_indexed_by_tensor_counter, (arr(2), rt.to_tensor(2)), (arr(2), rt.to_tensor(3)))


def stacked_list_indexed_by_tensor_counter(x, n):
    ws = rt.stack([x * 1.0, x * 2.0, x * 3.0])
    y = rt.zeros_like(x)
    for i in range(n):
        y = y + ws[i]
    return y


def test_stacked_list_indexed_by_a_tensor_loop_counter():
    check(stacked_list_indexed_by_tensor_counter, (arr(2), rt.to_tensor(2)), (arr(2), rt.to_tensor(3)),
          programs=1, grad=True)
