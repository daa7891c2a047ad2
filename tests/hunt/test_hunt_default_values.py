"""Default argument values are read by every eager call from `__defaults__`/`__kwdefaults__`; the
converted function kept the copy made at conversion, and no guard noticed a new one, so the
cached Program (and later traces) used the old value."""
import numpy as np

import dy2st
import runtime as rt


def _scaled(x, s=1.0, *, shift=0.0):
    return x * s + shift


def _helper(x, k=2.0):
    return x * k


def _calls_helper(x):
    return _helper(x) + 1


def _check(fn, change, slope):
    sf = dy2st.to_static(fn)
    x = rt.to_tensor(np.array([1.0, -2.0], "float32"), stop_gradient=False)
    for i in (0, 1, 1, 3):
        change(i)
        out = sf(x)
        np.testing.assert_array_equal(out.numpy(), fn(x).numpy())
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full(2, slope(), "float32"))
        x.clear_gradient()
    assert len(sf.program_cache) == 3


def test_reassigned_defaults_are_used_and_retrace():
    _check(_scaled, lambda i: setattr(_scaled, "__defaults__", (1.0 + i,)), lambda: _scaled.__defaults__[0])
    _check(_scaled, lambda i: setattr(_scaled, "__kwdefaults__", {"shift": float(i)}), lambda: _scaled.__defaults__[0])
    _check(_calls_helper, lambda i: setattr(_helper, "__defaults__", (2.0 + i,)), lambda: _helper.__defaults__[0])
