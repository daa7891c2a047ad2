"""What user code does with a list built in a tensor-dependent loop (one stacked tensor in the
Program): `sum`, `max`/`min`, `rt.add_n`, `rt.concat`/`rt.stack`, `len`, `lst[-1]`, `reversed`,
`for v in lst`, and `lst.insert(0, v)` in the loop. Each against eager on several trip counts,
0 included (where eager raises on an empty list, the converted code raises too)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check

X = np.array([1.5, -2.0, 0.25], "float32")
COUNTS = [np.array(k, "int64") for k in (0, 1, 3, 11)]


def _grow(x, n, scalar=False):
    out = []
    i = rt.zeros([], "int64")
    while i < n:
        v = x * (i.astype("float32") * 0.7 - 1.1)
        out.append(v.sum() if scalar else v)
        i += 1
    return out


def _sum(x, n):
    return sum(_grow(x, n), x * 0)


def _sum_scalars(x, n):
    return sum(_grow(x, n, True)) + x


def _max(x, n):
    return max(_grow(x, n, True)) * x


def _min(x, n):
    return min(_grow(x, n, True)) * x


def _add_n(x, n):
    return rt.add_n(_grow(x, n))


def _others(x, n):
    lst = _grow(x, n)
    s = x * len(lst)
    for v in reversed(lst):
        s = s * 0.5 + v
    for v in lst:
        s = s * 0.25 - v
    return s, rt.concat(lst + [x]), rt.stack(lst + [x])


def _last(x, n):
    return _grow(x, n)[-1]


def _prepend(x, n):
    out = [x]
    i = rt.zeros([], "int64")
    while i < n:
        out.insert(0, x * (i.astype("float32") + 2.0))
        i += 1
    return rt.stack(out), out[0]


def _insert_anywhere(x, n):
    out = [x, x * 2]
    i = rt.zeros([], "int64")
    while i < n:
        out.insert(1, x * (i.astype("float32") + 3.0))
        out.insert(-1, x * 0.5)
        out.insert(100, x - 1)  # past the end: appends, as list.insert
        i += 1
    return rt.stack(out)


def _args(*ks):
    return [(X, COUNTS[k]) for k in ks]


def test_sum_add_n_and_the_rest_match_eager_with_gradients():
    for fn in (_sum, _others, _prepend, _insert_anywhere):
        check(fn, *_args(0, 1, 2), grad=True, ops=("while",))
    for fn in (_sum_scalars, _add_n, _max, _min, _last):
        check(fn, *_args(1, 2, 3), grad=True, ops=("while",))


def test_sums_are_bitwise_eager():
    # eager sum adds one item at a time from 0; a reduce over 11 stacked scalars would pair them
    for fn in (_sum_scalars, _add_n, _sum):
        sf = dy2st.to_static(fn)
        a = fn(rt.to_tensor(X), rt.to_tensor(COUNTS[3])).numpy()
        b = sf(rt.to_tensor(X), rt.to_tensor(COUNTS[3])).numpy()
        assert np.array_equal(a, b), fn.__name__


def test_sum_of_an_empty_list_is_zero_and_its_gradient_finite_differences():
    sf = dy2st.to_static(_sum_scalars)
    assert np.array_equal(sf(rt.to_tensor(X), rt.to_tensor(COUNTS[0])).numpy(), X)
    x = rt.to_tensor(X, stop_gradient=False)
    sf(x, rt.to_tensor(COUNTS[2])).sum().backward()
    eps, base = 1e-2, X.astype("float64")
    num = []
    for j in range(3):
        d = np.zeros(3)
        d[j] = eps
        f = [sf(rt.to_tensor((base + s * d).astype("float32")), rt.to_tensor(COUNTS[2])).numpy().sum()
             for s in (1, -1)]
        num.append((f[0] - f[1]) / (2 * eps))
    np.testing.assert_allclose(x.gradient(), num, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("fn,error", [(_max, ValueError), (_min, ValueError), (_add_n, IndexError),
                                      (_last, IndexError)])
def test_empty_list_raises_as_eagerly(fn, error):
    with pytest.raises(error):
        fn(rt.to_tensor(X), rt.to_tensor(COUNTS[0]))
    with pytest.raises(error) as e:
        dy2st.to_static(fn)(rt.to_tensor(X), rt.to_tensor(COUNTS[0]))
    assert "test_hunt_loop_list_reductions.py" in str(e.value)


def _max_of_vectors(x, n):
    return max(_grow(x, n))


def _insert_at_tensor(x, n):
    out = []
    i = rt.zeros([], "int64")
    while i < n:
        out.insert(i, x)
        i += 1
    return rt.stack(out)


@pytest.mark.parametrize("fn,words", [(_max_of_vectors, "one-element tensors"),
                                      (_insert_at_tensor, "Python int index i")])
def test_what_cannot_be_expressed_is_an_error_at_the_users_line(fn, words):
    with pytest.raises(TypeError) as e:
        dy2st.to_static(fn)(rt.to_tensor(X), rt.to_tensor(COUNTS[2]))
    assert words in str(e.value) and "test_hunt_loop_list_reductions.py" in str(e.value)
