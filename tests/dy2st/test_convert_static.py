"""Converted functions build Programs with `cond`/`while` ops that match Python/eager results.

Each test builds one Program with symbolic inputs, runs it through the Executor on several
values, and compares with the original function run on Python/numpy values.
"""
import numpy as np
import pytest

import runtime as rt

pytest.importorskip("runtime.static")
if not all(hasattr(rt.static, a) for a in ("Program", "program_guard", "data", "Executor")) or \
        not all(hasattr(rt.static.nn, a) for a in ("cond", "while_loop")):
    pytest.skip("runtime.static control flow is not available yet", allow_module_level=True)

from dy2st.conversion.transform import transform_function  # noqa: E402
from static_helpers import building


def build(fn, specs):
    converted = transform_function(fn).fn
    main = rt.static.Program()
    with building(main):
        inputs = [rt.static.data(f"x{i}", shape, dtype) for i, (shape, dtype) in enumerate(specs)]
        out = converted(*inputs)
    return main, out


def run(main, out, *values):
    fetch = list(out) if isinstance(out, (list, tuple)) else [out]
    feed = {f"x{i}": np.asarray(v) for i, v in enumerate(values)}
    return rt.static.Executor().run(main, feed=feed, fetch_list=fetch)


def op_types(program):
    types = []
    for block in program.blocks:
        types += [op.type for op in block.ops]
    return types


def if_else(x):
    if x.sum() > 0:
        y = x + 1.0
    else:
        y = x - 1.0
    return y * 2.0


def while_sum(x, n):
    i = 0
    s = x * 0.0
    while i < n:
        s = s + x
        i += 1
    return s


def for_break_continue(x, n):
    s = x * 0.0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x * 2.0
        if s.sum() > 11.0:
            break
    return s


def first_big(x):
    for v in x:
        if v > 2.0:
            return v * 10.0
    return x.sum()


def logic_and_ternary(x):
    ok = x.sum() > 0 and x.max() < 5.0
    return (x * 2.0) if ok else (x * -1.0)


def collect(x, n):
    out = []
    for i in range(n):
        out.append(x * 2.0)
    return rt.stack(out)


def f32(*v):
    return np.array(v, dtype="float32")


def test_if_else_builds_cond():
    main, out = build(if_else, [([2], "float32")])
    assert "cond" in op_types(main)
    for x in (f32(1, 2), f32(-3, 1)):
        np.testing.assert_allclose(run(main, out, x)[0], if_else(x))


def test_while_builds_while():
    main, out = build(while_sum, [([2], "float32"), ([], "int64")])
    assert "while" in op_types(main)
    for n in (0, 1, 3):
        np.testing.assert_allclose(run(main, out, f32(1, 2), np.int64(n))[0], while_sum(f32(1, 2), n))


def test_for_range_with_break_and_continue():
    main, out = build(for_break_continue, [([2], "float32"), ([], "int64")])
    assert "while" in op_types(main)
    for n in range(7):
        np.testing.assert_allclose(run(main, out, f32(1, 2), np.int64(n))[0],
                                   for_break_continue(f32(1, 2), n))


def test_early_return_in_for_over_tensor():
    main, out = build(first_big, [([2], "float32")])
    assert "while" in op_types(main) and "cond" in op_types(main)
    for x in (f32(1, 3), f32(1, 1), f32(5, 1)):
        np.testing.assert_allclose(run(main, out, x)[0], first_big(x))


def test_logical_ops_and_ternary():
    main, out = build(logic_and_ternary, [([2], "float32")])
    types = op_types(main)
    assert "logical_and" in types and "cond" in types
    for x in (f32(1, 2), f32(-3, 1), f32(1, 7)):
        np.testing.assert_allclose(run(main, out, x)[0], logic_and_ternary(x))


def test_list_append_in_tensor_loop():
    main, out = build(collect, [([2], "float32"), ([], "int64")])
    assert "while" in op_types(main)
    for n in (1, 3):
        expected = np.stack([f32(1, 3) * 2.0] * n)
        np.testing.assert_allclose(run(main, out, f32(1, 3), np.int64(n))[0], expected)


def test_python_condition_stays_python():
    def f(x, flag):
        if flag:
            return x + 1.0
        return x

    converted = transform_function(f).fn
    main = rt.static.Program()
    with building(main):
        out = converted(rt.static.data("x0", [2], "float32"), True)
    assert "cond" not in op_types(main)
    np.testing.assert_allclose(run(main, out, f32(1, 2))[0], f32(2, 3))


def test_branch_dtype_mismatch_names_variable():
    def f(x):
        if x.sum() > 0:
            y = x
        else:
            y = x > 0
        return y

    with pytest.raises(ValueError, match="y"):
        build(f, [([2], "float32")])


def test_eager_tensors_run_as_python():
    converted = transform_function(if_else).fn
    x = rt.to_tensor(f32(1, 2))
    np.testing.assert_allclose(converted(x).numpy(), if_else(f32(1, 2)))


def enumerate_zip_rows(x, y):
    s = x[0] * 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + a * b + 1.0
    return s


def test_for_over_enumerate_zip_of_tensors():
    main, out = build(enumerate_zip_rows, [([-1, 2], "float32"), ([-1, 2], "float32")])
    assert "while" in op_types(main)
    for rows in (1, 3):
        x = np.arange(rows * 2, dtype="float32").reshape(rows, 2)
        y = x + 1.0
        np.testing.assert_allclose(run(main, out, x, y)[0], enumerate_zip_rows(x, y))


def len_and_shape(x):
    n = len(x)
    b = x.shape[0]
    return x.sum() * 0.0 + n + b + x.shape[1]


def test_len_and_shape_with_unknown_dims():
    main, out = build(len_and_shape, [([-1, 3], "float32")])
    for rows in (2, 5):
        x = np.ones([rows, 3], "float32")
        np.testing.assert_allclose(run(main, out, x)[0], 2 * rows + 3)


def test_assert_op_checks_every_run():
    def f(x):
        assert x.sum() > 0, "sum must be positive"
        return x * 2.0

    main, out = build(f, [([2], "float32")])
    assert "assert" in op_types(main)
    np.testing.assert_allclose(run(main, out, f32(1, 2))[0], f32(2, 4))
    with pytest.raises(AssertionError, match="sum must be positive"):
        run(main, out, f32(-1, -2))


def test_print_op_prints_every_run(capsys):
    def f(x):
        print("value:", x)
        return x + 1.0

    main, out = build(f, [([2], "float32")])
    assert "print" in op_types(main)
    capsys.readouterr()
    run(main, out, f32(1, 2))
    run(main, out, f32(3, 4))
    printed = capsys.readouterr().out
    assert "3" in printed and "1" in printed


def test_variable_defined_in_one_tensor_branch_is_undefined_after():
    def f(x):
        if x.sum() > 0:
            y = x * 2.0
        return y + 1.0

    with pytest.raises(NameError, match="'y'") as info:
        build(f, [([2], "float32")])
    assert "return y + 1.0" in str(info.value)  # the user's line, not generated code


def return_from_inner_loop(x, n):
    s = x.sum() * 0.0
    i = 0
    while i < n:
        j = 0
        while j < n:
            if j > i:
                break
            s = s + x[j]
            if s > 6.0:
                return s * -1.0
            j += 1
        i += 1
    return s


def test_return_from_nested_tensor_loops():
    main, out = build(return_from_inner_loop, [([4], "float32"), ([], "int64")])
    assert op_types(main).count("while") >= 2
    x = f32(1, 2, 3, 4)
    for n in range(5):
        np.testing.assert_allclose(run(main, out, x, np.int64(n))[0], return_from_inner_loop(x, n))
