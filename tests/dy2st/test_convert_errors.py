"""Unsupported constructs raise a dy2st error naming the construct and the user's file/line."""

import pytest

from dy2st.pyct.errors import Dy2StError, Dy2StSyntaxError
from dy2st.conversion.transform import transform_function
from error_helpers import line_of

COUNTER = 0


def gen(n):
    for i in range(n):
        yield i


def rebinds_global(x):
    global COUNTER
    COUNTER = COUNTER + x
    return COUNTER


def reads_global(x):
    return COUNTER + x


def test_yield_is_rejected_with_line():
    with pytest.raises(Dy2StSyntaxError) as info:
        transform_function(gen)
    err = info.value
    assert isinstance(err, Dy2StError) and isinstance(err, SyntaxError)
    assert err.lineno == line_of(gen, "yield i")
    assert err.filename == __file__
    assert "yield" in str(err) and "yield i" in str(err)


def test_global_rebinding_is_rejected_with_line():
    with pytest.raises(Dy2StSyntaxError) as info:
        transform_function(rebinds_global)
    assert info.value.lineno == line_of(rebinds_global, "global COUNTER")
    assert "global COUNTER" in str(info.value)


def test_reading_a_global_is_fine():
    assert transform_function(reads_global).fn(2) == COUNTER + 2


def test_nonlocal_rebinding_a_name_outside_the_function_is_rejected():
    # (`add` made before any trace: its `total` would keep the value of one trace; a def inside the
    # converted function rebinding that function's name converts, tests/hunt/test_hunt_fuzz_rebinds.py)
    def outer():
        total = 0

        def add(v):
            nonlocal total
            total += v
            return total
        return add

    with pytest.raises(Dy2StSyntaxError, match="nonlocal total"):
        transform_function(outer())


def test_a_declaration_inside_a_block_that_rebinds_is_rejected():
    def outer(x):
        total = x

        def add(v):
            if v > 0:
                nonlocal total
            total = total + v
        add(x)
        return total

    with pytest.raises(Dy2StSyntaxError, match="declare it first"):
        transform_function(outer)


def test_nested_generator_call_runs_unconverted_with_warning():
    def uses_gen(n):
        return sum(gen(n))

    with pytest.warns(UserWarning, match="could not convert"):
        assert transform_function(uses_gen).fn(4) == 6


def test_runtime_errors_point_at_user_lines():
    def divide(x):
        s = 0
        for i in range(x):
            s += 1 / (i - 2)
        return s

    converted = transform_function(divide)
    with pytest.raises(ZeroDivisionError) as info:
        converted.fn(5)
    tb = info.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    origin = converted.origin_of(tb.tb_lineno)
    assert tb.tb_frame.f_code.co_filename == converted.filename
    assert origin.filename == __file__
    assert origin.lineno == line_of(divide, "s += 1 / (i - 2)")
    assert origin.source_line.strip() == "s += 1 / (i - 2)"


@pytest.mark.parametrize("call", ["item", "tolist", "numpy"])
def test_python_value_of_a_traced_tensor_is_a_clear_error_at_the_user_line(call):
    import numpy as np

    import dy2st
    import runtime as rt
    from error_helpers import notes

    def needs_a_number(x):
        total = getattr(x.sum(), call)()
        return x * 2 if total else x

    sf = dy2st.to_static(needs_a_number, full_graph=True)
    with pytest.raises(TypeError) as info:
        sf(rt.to_tensor(np.ones(3, "float32")))
    assert f"{call}()" in str(info.value) or "has no value" in str(info.value)
    assert "Program" in str(info.value)
    assert f"line {line_of(needs_a_number, 'total = getattr')}" in notes(info.value)


def test_different_functions_in_tensor_branches_name_the_functions_not_the_generated_code():
    import dy2st
    import runtime as rt

    def pick(x):
        if x.sum() > 0:
            f = lambda t: t * 2  # noqa: E731
        else:
            f = abs
        return f(x)

    with pytest.raises(ValueError) as info:
        dy2st.to_static(pick)(rt.to_tensor([1.0, 2.0]))
    message = str(info.value)
    assert "variable 'f' is function <lambda> in one branch" in message
    assert "builtin_function_or_method <built-in function abs> in the other" in message
    assert "true_fn" not in message and "must be a tensor in both" in message
    assert f"line {line_of(pick, 'if x.sum() > 0')}" in message
