"""Shared by the control-flow hunt tests: call one converted function with several argument
tuples (one cached Program for each signature) and compare values, and gradients, with eager."""
import numpy as np

import dy2st
import runtime as rt


def t(v, dtype="float32"):
    return rt.to_tensor(np.array(v, dtype=dtype))


def same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif rt.is_tensor(a) or rt.is_tensor(b):
        np.testing.assert_array_equal(np.asarray(b.numpy() if rt.is_tensor(b) else b),
                                      np.asarray(a.numpy() if rt.is_tensor(a) else a))
    else:
        assert a == b


def check(fn, calls, grad=False):
    """Call one StaticFunction with every argument tuple of ``calls``; compare with ``fn`` eagerly."""
    sf = dy2st.to_static(fn)
    for args in calls:
        same(fn(*args), sf(*args))
        if grad:
            x, rest = args[0], args[1:]
            x.stop_gradient = False
            x.clear_gradient()
            fn(x, *rest).sum().backward()
            eager = x.grad.numpy().copy()
            x.clear_gradient()
            sf(x, *rest).sum().backward()
            np.testing.assert_array_equal(x.grad.numpy(), eager)
            x.clear_gradient()
            x.stop_gradient = True
    return sf
