"""`float(t)` (and `t.item()`) of a float32 (or float16) tensor is a Python float eagerly: a float64 value, and the
Python arithmetic and comparisons on it are float64's. Converted, it was a float32 0-d value and
`int(t[i]) * 2 + float(t[i])` summed over a loop, or `float(t.sum()) > 0.30000001`, were computed
in float32: other bits, or the other branch, silently. It is now a view of the float64 value."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _loop_sum(x):
    s = 0
    for i in range(3):
        s += int(x[i]) * 2 + float(x[i]) * 0.1
    return x * 0 + s  # the float32 the eager Python float becomes, bit for bit


def _compare(x):
    if float(x.sum()) > 0.30000001:  # float32 0.3 is 0.30000001192...: above it eagerly
        return x + 1
    return x - 1


def _half(x):
    h = x.astype("float16")
    return h * float(x.sum()), h + float(h[0]) * 3, x * int(float(x[0]) * 10)


def _items(x):
    s = x.sum().item()
    a = s * 1e-8 + 1.0  # float64 keeps s's digits; float32 rounds a to 1.0
    if a > 1.0:
        return x + 1, x * 0 + (a - 1.0) * 1e8
    return x - 1, x * 0 + (x.max().item() + s - 0.3)


@pytest.mark.parametrize("fn", [_loop_sum, _compare, _half, _items])
def test_float_of_a_tensor_computes_as_a_python_float(fn):
    sf = dy2st.to_static(fn)
    for v in ([1.0, 2.0, 3.5], [0.1, 0.2, 0.0], [0.0, -2.7, 3.0], [0.3, 0.0, 1e-8]):
        x = rt.to_tensor(np.array(v, "float32"))
        want, got = fn(x), sf(x)
        for a, b in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            assert str(a.dtype) == str(b.dtype)
            np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert len(sf.program_cache) == 1
