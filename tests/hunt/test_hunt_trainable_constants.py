"""`rt.to_tensor(v, stop_gradient=False)` (or `.stop_gradient = False` on a value made inside)
in converted code: the Program made it a constant with stop_gradient=True, so `backward()` on an
output reached only through it failed and `y.stop_gradient` read True. It is now a trainable value
of the Program (`rt.grad` and the gradients of the arguments and parameters are eager's); where a
`.grad` eager fills would be lost (the value returned, or an output differentiable only through
it), the trace is refused at the line that made it. `rt.grad` without create_graph gives
constants, as eagerly (the Program used to differentiate them again)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from tests.compat.helpers import arr, check


def _inner_grad(x):
    w = rt.to_tensor([2.0, -3.0], stop_gradient=False)
    y = (x * w * w).sum()
    g = rt.grad(y, w)[0]
    return g, y.stop_gradient, w.stop_gradient


def _mixed(x):
    w = rt.to_tensor(np.array([0.5, 2.0], "float32"), stop_gradient=False)
    c = rt.to_tensor(x, stop_gradient=False)  # a copy: trainable, cut from x
    return (x * w).sum() + (x * x).sum() + (c * w).sum(), c.stop_gradient


def _penalty(x):
    y = (x * x * x).sum()
    g = rt.grad(y, x)[0]  # no create_graph: a constant, the penalty adds no gradient
    return y + (g * g).sum()


def test_trainable_constants_and_grad_results_match_eager():
    check(_inner_grad, arr(2, seed=1), arr(2, seed=2, lo=1, hi=3))
    check(_mixed, arr(2, seed=3), arr(2, seed=4), grad=True)
    check(_penalty, arr(2, seed=5), arr(2, seed=6, lo=-3, hi=-1), grad=True)


def _returned(x):
    w = rt.to_tensor([2.0, 3.0], stop_gradient=False)
    return (x * w).sum(), w


def _only_through(x):
    w = rt.zeros([2]) + 1
    w.stop_gradient = False
    return x * w


def _copied(x):
    z = rt.to_tensor(x, stop_gradient=False)  # eagerly a new leaf: no gradient reaches x
    return rt.to_tensor(x) * 2 + z


@pytest.mark.parametrize("fn, line", [(_returned, "w = rt.to_tensor([2.0, 3.0], stop_gradient=False)"),
                                      (_only_through, "w = rt.zeros([2]) + 1"),
                                      (_copied, "z = rt.to_tensor(x, stop_gradient=False)")])
def test_a_lost_leaf_gradient_is_refused_at_the_users_line(fn, line):
    with pytest.raises(TypeError, match="trainable tensor made inside the converted function") as info:
        dy2st.to_static(fn)(rt.to_tensor([1.0, 5.0]))
    where = notes(info.value)
    assert "test_hunt_trainable_constants.py" in where and line in where
