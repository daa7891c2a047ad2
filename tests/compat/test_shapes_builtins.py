"""Paddle's shape and builtin test patterns (test_tensor_shape.py, test_len.py, test_logical.py,
test_assert.py, test_print.py, test_cast.py, test_slice.py): `x.shape` and `rt.shape(x)` in
reshape/full/loops/conditions, with an `InputSpec` `None` dim served by one Program; `len`;
`not`/`and`/`or` on tensors; `assert`; `print`; builtin casts; slicing and item writes."""
import numpy as np
import pytest

import dy2st
import runtime as rt

from .helpers import arr, check, needs_variable_size, same

X = arr(4, 6)
SPEC = [dy2st.InputSpec([None, 6], "float32", "x")]


def reshape_to_own_shape(x):
    return rt.reshape(x, shape=x.shape)


def reshape_alias_shape(x):
    s = x.shape
    s2 = s
    return rt.reshape(x, s2)


def reshape_runtime_shape(x):
    return rt.reshape(x, shape=rt.shape(x))


def reshape_mixed_tuple(x):
    return rt.reshape(x, shape=(-1, x.shape[0], len(x.shape)))


def reshape_from_dim(x):
    s = x.shape[0]
    return rt.reshape(x, shape=(-1, s))


def reshape_unpacked(x):
    a, b = x.shape
    return rt.reshape(x, shape=(b, -1)) + a


def full_by_batch(x):
    return rt.zeros([x.shape[0], 2], "float32") + rt.ones([rt.shape(x)[0], 1]) + x[:, :2]


def test_reshape_by_shape_patterns_concrete():
    for fn in (reshape_to_own_shape, reshape_alias_shape, reshape_runtime_shape, reshape_from_dim,
               reshape_unpacked, full_by_batch):
        check(fn, (X,), grad=True)
    check(reshape_mixed_tuple, (arr(4, 8),), grad=True)


@pytest.mark.parametrize("fn", [reshape_to_own_shape, reshape_runtime_shape, reshape_from_dim,
                                reshape_unpacked, full_by_batch])
def test_reshape_by_shape_with_a_none_dim_one_program(fn):
    sf = dy2st.to_static(fn, input_spec=SPEC)
    for b in (2, 5):
        x = arr(b, 6, seed=b)
        same(fn(rt.to_tensor(x)), sf(rt.to_tensor(x)))
    assert len(sf.program_cache) == 1


def shape_in_if(x):
    if x.shape[0] > 1:
        res = x + 1
    else:
        res = x - 1
    if rt.shape(x)[0] > 3:
        res = res * 2
    return res


def shape_in_for(x):
    s = rt.zeros([6], "float32")
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def shape_in_while(x):
    i = 0
    s = rt.zeros([6], "float32")
    while i < rt.shape(x)[0]:
        s = s + x[i]
        i = i + 1
    return s


def len_of_shape_and_tensor(x):
    n = len(x.shape)
    m = len(x)
    return x * n + m


@pytest.mark.parametrize("fn", [shape_in_if, shape_in_for, shape_in_while, len_of_shape_and_tensor])
def test_shape_driven_control_flow(fn):
    check(fn, (X,), (arr(1, 6),), grad=True)
    sf = dy2st.to_static(fn, input_spec=SPEC)
    for b in (1, 3, 5):
        x = arr(b, 6, seed=b)
        same(fn(rt.to_tensor(x)), sf(rt.to_tensor(x)))
    assert len(sf.program_cache) == 1


def len_of_loop_list(x, n):
    a = []
    i = 0
    while i < n:
        a.append(x)
        i += 1
    return len(a)


def test_len_of_a_list_built_in_a_tensor_loop():
    check(len_of_loop_list, (arr(2), rt.to_tensor(3)), (arr(2), rt.to_tensor(0)), programs=1)


def logical_patterns(x, y):
    a = not x.sum() > 0
    b = (x.mean() > 0) and (y.mean() < 0)
    c = (x.mean() > 0) or (y.mean() < 0)
    if not (x.mean() > y.mean()):
        z = x - y
    else:
        z = x + y
    if x.shape[0] == y.shape[0] and x is not None:
        z = z * 2
    return a, b, c, z


def test_logical_operators_on_tensors():
    check(logical_patterns, (arr(3), arr(3, seed=1)), (arr(3, lo=1, hi=2), arr(3, lo=-2, hi=-1)),
          (arr(3, lo=-2, hi=-1), arr(3, lo=1, hi=2)), programs=1, grad=True)


def python_logic(x, flag):
    if not flag and x is not None:
        return x + 1
    return x


def test_logical_operators_on_python_values():
    check(python_logic, (X, True), (X, False), programs=2)


def assert_tensor(x):
    assert x.mean() > -10, "mean too small"
    assert rt.all(x > -100)
    return x * 2


def assert_python(x, flag):
    assert flag
    return x


def test_assert_tensor_and_python():
    check(assert_tensor, (X,))
    sf = dy2st.to_static(assert_tensor)
    with pytest.raises(AssertionError, match="mean too small"):
        sf(rt.to_tensor(X - 100))
    check(assert_python, (X, True))
    with pytest.raises(AssertionError):
        dy2st.to_static(assert_python)(rt.to_tensor(X), False)


def print_patterns(x):
    print(x)
    print("x is", x, sep=": ", end="\n\n")
    print("shape {}".format(x.shape))
    y = x * 2
    if y.mean() > 0:
        print("positive", y)
    return y


def test_print_patterns(capsys):
    check(print_patterns, (arr(2, 2),))
    out = capsys.readouterr().out
    assert out.count("x is: ") == 2 and "shape [2, 2]" in out


def print_ndarray(x):
    print(x.numpy())
    return x


def test_print_of_numpy_value(capsys):
    check(print_ndarray, (arr(2),))
    assert capsys.readouterr().out.strip()


def builtin_casts(x):
    a = int(x)
    b = float(x)
    c = bool(x)
    return rt.to_tensor(a), rt.to_tensor(b), rt.to_tensor(c)


def builtin_casts_python(x):
    return int(x.shape[0]) + float(2), bool(0)


def test_builtin_casts_of_python_values():
    check(builtin_casts_python, (X,))


def test_builtin_casts_of_tensors():
    check(builtin_casts, (np.array([2.5], "float32"),), (np.array([0.0], "float32"),), programs=1)


def slicing(x, i):
    a = x[0:2]
    b = x[:, 1:3]
    c = x[i]
    d = x[-1, ::2]
    e = x[..., 0]
    f = x[None, 1]
    return a, b, c, d, e, f


def test_slicing_and_tensor_index():
    check(slicing, (X, rt.to_tensor(1)), (X, rt.to_tensor(3)), programs=1, grad=True)


def slice_with_runtime_bounds(x):
    n = x.shape[0]
    return x[1:n], x[: rt.shape(x)[0] - 1]


def test_slice_bounds_from_shape_with_none_dim():
    sf = dy2st.to_static(slice_with_runtime_bounds, input_spec=SPEC)
    for b in (2, 4):
        x = arr(b, 6, seed=b)
        same(slice_with_runtime_bounds(rt.to_tensor(x)), sf(rt.to_tensor(x)))
    assert len(sf.program_cache) == 1


def set_item(x):
    y = x * 1
    y[0] = 0.0
    y[1:2] = 3.0
    y[:, 0] = x[:, 1]
    return y


def test_item_assignment():
    check(set_item, (X,), grad=True)


def slice_in_loop(x, n):
    a = []
    for i in range(n):
        a.append(x[i])
    return a[0] + a[-1]


def test_slice_inside_tensor_loop():
    check(slice_in_loop, (X, rt.to_tensor(2)), (X, rt.to_tensor(4)), programs=1)


def chained_compare(x, lo=0.0):
    if lo < x.mean() < 1:
        x = x + 1
    inside = -1 < x.sum() <= 100
    return x, inside, 1 < 2 < 3


def test_chained_comparison_with_a_tensor_link():
    check(chained_compare, (arr(3, lo=0.1, hi=0.9),), (arr(3, lo=2, hi=3),), (arr(3, lo=-3, hi=-2),),
          ops=["cond", "logical_and"], programs=1, grad=True)
    sf = dy2st.to_static(chained_compare)
    assert "_jst.Compare" in sf.code


def rank_methods(x):
    return x * x.dim() + x.ndimension() + x.ndim


def size_property(x):
    return x * x.size


def test_rank_methods():
    check(rank_methods, (X,), grad=True)


@needs_variable_size
def test_size_property():
    check(size_property, (X,), grad=True)


def none_dim_idioms(x):
    assert isinstance(x, rt.Tensor)
    y = x[::-1] + x[..., None][:, :, 0] + x[:, None, :][:, 0]
    n = x.shape[0]
    half = n // 2
    i = 0
    out = rt.zeros([6])
    while i < x.shape[0] and out.sum() < 5:
        out = out + x[i]
        i += 1
    return y, x[:half], x[half:], rt.reshape(x, [n * 6]), out, i


def test_none_dim_idioms_served_by_one_program():
    sf = dy2st.to_static(none_dim_idioms, input_spec=SPEC)
    for b in (1, 2, 5):
        x = arr(b, 6, seed=b, lo=0, hi=1.5)
        same(none_dim_idioms(rt.to_tensor(x)), sf(rt.to_tensor(x)))
    assert len(sf.program_cache) == 1
