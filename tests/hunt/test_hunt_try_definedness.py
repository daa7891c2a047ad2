"""A name bound inside ``try`` and read by a tensor ``if`` after it: the body binds it on every path that
reaches the ``if`` (when each handler that can finish binds it too), so the converted code reads it as
eager does, instead of refusing it as "not defined on every path"."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def try_finally(x):
    try:
        y = x + 1
    finally:
        z = 2
    if y.sum() > 0:
        y = y * z
    return y


def try_except_both_bind(x):
    try:
        y = x + 1
        k = int("7")
    except ValueError:
        y = x - 1
        k = 0
    if y.sum() > 0:
        y = y * k
    return y


def try_except_raises(x):
    try:
        y = x * 3
    except KeyError as err:
        raise RuntimeError("no") from err
    else:
        w = y + 1
    if w.mean() > 0:
        w = w - y
    return w


def handler_as_name_and_pass(x):
    y = x
    try:
        y = x + 1
    except ValueError as e:
        print(e)
    if y.sum() > 0:
        y = -y
    return y


@pytest.mark.parametrize("fn", [try_finally, try_except_both_bind, try_except_raises, handler_as_name_and_pass])
def test_names_bound_in_try_are_read_after_it(fn):
    sf = dy2st.to_static(fn)
    for v in ([1.0, -2.0, 3.0], [-1.0, -2.0, -3.0], [0.5, 0.0, -0.25]):
        x = rt.to_tensor(np.array(v, "float32"))
        np.testing.assert_array_equal(sf(x).numpy(), fn(x).numpy())
    assert len(sf.program_cache) == 1
    assert "UndefinedVar('y')" not in sf.code


def only_in_handler(x):
    try:
        x = x + 1
    except ValueError:
        y = x
    if x.sum() > 0:
        y = x * 2
    return y


def test_a_name_only_a_handler_binds_is_still_maybe_undefined():
    # eager returns y only when x.sum() > 0; the Program cannot return a name some runs leave unbound
    sf = dy2st.to_static(only_in_handler)
    x = rt.to_tensor(np.array([1.0, 2.0], "float32"))
    with pytest.raises(NameError, match=r"returns 'y', which is not defined on every path[\s\S]*line 73"):
        sf(x)
