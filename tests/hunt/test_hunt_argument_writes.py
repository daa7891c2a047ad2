"""A converted function that writes into a list/dict argument changes the caller's container as eager does."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _collect(x, acc):
    acc.append(x.sum())
    return x * 2


def _replace_item(x, xs):
    xs[0] = xs[0] * 2
    return x + xs[0]


def _set_key(x, d):
    d["seen"] = True
    return x


def _reads_only(x, xs, d):
    return x * len(xs) + xs[0] * d["k"]


@pytest.mark.parametrize("fn,extra", [(_collect, lambda: []), (_replace_item, lambda: [rt.to_tensor([1.0])]),
                                     (_set_key, lambda: {"k": 1})])
def test_writing_into_a_container_argument_reaches_the_caller(fn, extra):
    sf = dy2st.to_static(fn)
    for v in (1.0, 2.0):
        eager, converted = extra(), extra()
        a, b = fn(rt.to_tensor([v]), eager), sf(rt.to_tensor([v]), converted)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert repr(eager) == repr(converted)


def test_reading_container_arguments_still_converts():
    sf = dy2st.to_static(_reads_only)
    xs, d = [rt.to_tensor([2.0]), 3], {"k": 4.0}
    out = sf(rt.to_tensor([1.0]), xs, d)
    np.testing.assert_array_equal(out.numpy(), _reads_only(rt.to_tensor([1.0]), xs, d).numpy())
