"""`rt.grad` called under a tensor-dependent `if` or in a loop body: the gradient was built from
the ops of the branch (or body) alone, so a path through values computed before it (`y = x * x`
outside, `(y * x).sum()` inside) was cut and d/dx came out as y, not 3x^2, silently. It now goes
through the enclosing blocks' ops as eager autograd does; in a loop body, a path through a value
the loop carries from an earlier iteration (eager follows it back) raises at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _x():
    x = rt.to_tensor(np.array([1.0, 2.0, -0.5], "float32"))
    x.stop_gradient = False
    return x


def _branch(x):
    y = x * x
    if x.sum() > 0:
        g = rt.grad((y * x).sum(), x)[0]
    else:
        g = rt.grad(y.sum(), x)[0]
    return g


def _target_before(x):
    y = (x * x * x).sum()
    if x.mean() > 0:
        return rt.grad(y, x, create_graph=True)[0] * 2
    return x


def _loop(x, n):
    y = x * x
    g = x * 0
    i = 0
    while i < n:
        if i % 2 == 0:
            g = g + rt.grad((y * x).sum(), x)[0]
        i += 1
    return g


def _descent(x, n):  # the gradient w.r.t. the carried value itself: this iteration's ops only
    w = x * 1.0
    i = 0
    while i < n:
        w = w - 0.1 * rt.grad((w * w * w).sum(), w)[0]
        i += 1
    return w


def _detached_carry(x, n):  # the carry enters through detach(): no path back through it
    h = x * 0
    gs = x * 0
    i = 0
    while i < n:
        h = rt.tanh(h.detach() * 0.5 + x)
        gs = gs + rt.grad(h.sum(), x)[0]
        i += 1
    return gs


def _through_carry(x, n):
    s = x
    i = 0
    g = x
    while i < n:
        s = s * x
        g = rt.grad(s.sum(), x)[0]
        i += 1
    return g


def test_grad_in_branch_goes_through_enclosing_ops():
    for fn in (_branch, _target_before):
        sf = dy2st.to_static(fn)
        for sign in (1.0, -1.0):
            x = _x()
            np.testing.assert_array_equal(sf(x * sign).numpy(), fn(x * sign).numpy())
    x = _x()
    _target_before(x).sum().backward()  # second derivative through the cond op
    eager = x.grad.numpy().copy()
    x.clear_gradient()
    dy2st.to_static(_target_before)(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), eager)


def test_grad_in_loop_body():
    for fn in (_loop, _descent, _detached_carry):
        sf = dy2st.to_static(fn)
        for n in (0, 1, 3):
            x, k = _x(), rt.to_tensor(n, "int64")
            np.testing.assert_allclose(sf(x, k).numpy(), fn(x, k).numpy(), rtol=0, atol=0)
    with pytest.raises(NotImplementedError, match="carries from one iteration") as info:
        dy2st.to_static(_through_carry)(_x(), rt.to_tensor(2, "int64"))
    assert "test_hunt_grad_in_branches.py" in "".join(getattr(info.value, "__notes__", []))


def _through_outer_ops(x, n):
    if x.sum() > 0:  # an earlier `if` and loop on the path: their gradient ops go in the branch too
        y = x * x
    else:
        y = x * 3
    i = 0
    while i < n:
        y = y * x
        i += 1
    if x.mean() > 0:
        g = rt.grad(y.sum(), x)[0]
    else:
        g = x * 0
    return g


def test_grad_in_branch_through_earlier_branches_and_loops():
    sf = dy2st.to_static(_through_outer_ops)
    for vals, n in (([1.0, 2.0], 2), ([-1.0, 2.0], 0), ([-1.0, -2.0], 1)):
        x = rt.to_tensor(np.array(vals, "float32"))
        x.stop_gradient = False
        k = rt.to_tensor(n, "int64")
        np.testing.assert_array_equal(sf(x, k).numpy(), _through_outer_ops(x, k).numpy())
