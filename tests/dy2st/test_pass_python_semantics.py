"""Every pass, run on Python-valued inputs, must give exactly what the original gives."""
import itertools

import pytest
from hypothesis import given, settings, strategies as st

from dy2st.conversion.transform import transform_function


def early_return_nested(x, n):
    s = 0
    for i in range(n):
        if i > x:
            if i % 3 == 0:
                return s * 10
            return s
        j = 0
        while j < i:
            if j == x:
                return -j
            j += 1
        s += i
    return s


def return_from_inner_loop(xs, n):
    s = 0
    i = 0
    while i < n:
        j = 0
        while j < n:
            if j > i:
                break
            s = s + xs[j]
            if s > 6:
                return -s
            j += 1
        i += 1
    return s


def break_continue_nested(n, m):
    total = 0
    for i in range(n):
        if i == 7:
            break
        if i % 2:
            continue
        k = 0
        while True:
            k += 1
            if k > m:
                break
            if k % 3 == 0:
                continue
            total += i * k
    else:
        total += 1000
    return total


def while_else(n):
    i = 0
    while i < n:
        i += 1
        if i == 4:
            break
    else:
        i = -i
    return i


def fall_off_end(x):
    if x > 0:
        return x
    print_nothing = x  # noqa: F841  (the function falls off its end: returns None)


def ternary_and_logic(a, b):
    y = a if a > b else b
    z = (a > 0 and b > 0) or not (a + b)
    return y, z, (a and b), (a or b)


def enumerate_zip(xs, ys):
    out = []
    for i, (x, y) in enumerate(zip(xs, ys)):
        out.append(i * x + y)
    for k, v in enumerate(xs, 10):
        out.append(k - v)
    return out, i


def loop_var_after(n):
    for i in range(n):
        pass
    return i


def defined_in_one_branch(x):
    if x > 0:
        y = x * 2
    if x > 0:
        return y
    return 0


CALLS = []


def helper(v):
    CALLS.append(v)
    if v > 2:
        return v - 1
    return v + 1


def calls_helper(x):
    return helper(x) + helper(helper(x))


def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


def make_closure(k):
    def inner(x):
        if x > k:
            return x - k
        return k
    return inner


def nested_def(x):
    def sq(v):
        if v < 0:
            return -v * v
        return v * v
    return sq(x) + sq(-x)


class Model:
    scale = 3

    def forward(self, x):
        if x > 0:
            return self.scale * x
        return self.helper(x)

    def helper(self, x):
        while x < 0:
            x += self.scale
        return x


CASES = [
    (early_return_nested, list(itertools.product(range(-1, 6), range(0, 9)))),
    (return_from_inner_loop, [([1, 2, 3, 4], n) for n in range(5)]),
    (break_continue_nested, list(itertools.product(range(0, 10), range(0, 6)))),
    (while_else, [(n,) for n in range(7)]),
    (fall_off_end, [(-2,), (0,), (3,)]),
    (ternary_and_logic, list(itertools.product([-1, 0, 2], [-3, 0, 1]))),
    (enumerate_zip, [([1, 2, 3], [4, 5, 6]), ([7], [1, 2])]),
    (loop_var_after, [(3,), (1,)]),
    (defined_in_one_branch, [(-1,), (2,)]),
    (calls_helper, [(0,), (3,), (5,)]),
    (fact, [(0,), (5,)]),
    (nested_def, [(-2,), (3,)]),
]


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_same_result_as_python(fn, inputs):
    converted = transform_function(fn).fn
    for args in inputs:
        assert converted(*args) == fn(*args), args


def test_short_circuit_side_effects():
    calls = []

    def side(v):
        calls.append(v)
        return v

    def f(a, b):
        return side(a) and side(b) or side("c")

    converted = transform_function(f).fn
    for a, b in itertools.product([0, 1], [0, 2]):
        calls.clear()
        expected = f(a, b)
        expected_calls = list(calls)
        calls.clear()
        assert converted(a, b) == expected
        assert calls == expected_calls


def test_user_calls_are_converted_recursively():
    CALLS.clear()
    assert transform_function(calls_helper).fn(3) == calls_helper(3)
    assert "_jst.Call(helper)" in transform_function(calls_helper).source


def test_closure_cells_stay_live():
    inner = make_closure(2)
    converted = transform_function(inner).fn
    assert converted(5) == 3 and converted(1) == 2


def test_globals_are_shared():
    converted = transform_function(Model.forward).fn
    m = Model()
    assert converted(m, 2) == 6
    assert converted(m, -4) == 2
    Model.scale = 5
    try:
        assert converted(m, 2) == 10
    finally:
        Model.scale = 3


def test_bound_method_and_lambda():
    m = Model()
    converted = transform_function(m.helper).fn
    assert converted(m, -7) == m.helper(-7)
    f = lambda a, b: a if a > b else b  # noqa: E731
    assert transform_function(f).fn(3, 4) == 4


def test_undefined_variable_names_variable():
    def f(x):
        if x > 0:
            y = 1
        return y + 1

    converted = transform_function(f).fn
    assert converted(1) == 2
    with pytest.raises(NameError, match="'y'"):
        converted(-1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 9), min_size=4, max_size=4), st.integers(0, 4),
       st.integers(-3, 8), st.integers(0, 7))
def test_random_inputs_match_python(xs, n, x, m):
    converted = _converted(return_from_inner_loop, early_return_nested, break_continue_nested)
    assert converted[0](xs, n) == return_from_inner_loop(xs, n)
    assert converted[1](x, n) == early_return_nested(x, n)
    assert converted[2](m, n) == break_continue_nested(m, n)


_CONVERTED = {}


def _converted(*fns):
    for fn in fns:
        if fn not in _CONVERTED:
            _CONVERTED[fn] = transform_function(fn).fn
    return [_CONVERTED[fn] for fn in fns]


def test_user_names_equal_to_template_placeholders():
    def f(outs, params, body, fn):
        for item in range(3):
            outs = outs + item
            if outs > params:
                body = body + 1
        fn = outs if body else fn
        return outs, params, body, fn

    assert transform_function(f).fn(1, 2, 0, 9) == f(1, 2, 0, 9)
    assert transform_function(f).fn(0, 100, 0, 9) == f(0, 100, 0, 9)
