"""A `register_hook` on a tensor read inside a tensor `while` or `cond` runs once, on its whole
gradient, as eagerly: the backward of the loop body (or branch) ran it on its own terms too, so the
hook's change was applied twice, a silently wrong gradient."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def hooked_in_loop(x, n):
    w = x * 1.0
    w.register_hook(lambda g: g * 2)
    a = x
    for _ in range(n):
        a = a * w
    return a.sum() + (w * 3).sum()


def hooked_in_branch(x, n):
    w = x * 1.0
    w.register_hook(lambda g: g * 2)
    if x.sum() > 0:
        y = w * w
    else:
        y = w
    return y.sum() + w.sum()


@pytest.mark.parametrize("fn", [hooked_in_loop, hooked_in_branch])
def test_hook_on_a_tensor_read_in_control_flow_runs_once(fn):
    for values in ([0.5, 1.5], [-2.0, 0.25]):
        grads = []
        for convert in (False, True):
            x = rt.to_tensor(np.array(values, "float32"), stop_gradient=False)
            (dy2st.to_static(fn) if convert else fn)(x, rt.to_tensor(3)).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[1], grads[0])


def grad_of_hooked_in_branch(x):
    y = x * 1.0
    y.register_hook(lambda g: g * 3)
    z = rt.tanh(y)
    if x.sum() > 0:
        return rt.grad([z], [x])[0]
    return rt.ones_like(x)


def test_hook_runs_for_rt_grad_called_inside_a_branch():
    x = rt.to_tensor(np.array([0.5, 1.5], "float32"), stop_gradient=False)
    want = grad_of_hooked_in_branch(x)
    np.testing.assert_array_equal(dy2st.to_static(grad_of_hooked_in_branch)(x).numpy(), want.numpy())
