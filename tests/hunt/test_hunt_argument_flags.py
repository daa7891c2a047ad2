"""``x.stop_gradient = False`` / ``x.requires_grad_()`` on an argument inside converted code changes
the caller's tensor before the run, as eagerly: the result takes a gradient and backward fills
x.grad (the converted result was a constant and backward raised)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _set_flag(x):
    x.stop_gradient = False
    if x.sum() > 0:
        y = x * x
    else:
        y = x * 3
    return y


def _requires_grad(x):
    x.requires_grad_()
    return rt.tanh(x) * 2


@pytest.mark.parametrize("fn", [_set_flag, _requires_grad])
def test_argument_made_trainable_like_eager(fn):
    sf = dy2st.to_static(fn)
    for v in (np.array([0.5, 1.5], "float32"), np.array([-2.0, 0.25], "float32"), np.array([1.0, 2.0], "float32")):
        results = []
        for f in (fn, sf):
            x = rt.to_tensor(v)
            out = f(x)
            assert x.stop_gradient is False and out.stop_gradient is False
            out.sum().backward()
            results.append((out.numpy(), x.grad.numpy()))
        np.testing.assert_array_equal(results[0][0], results[1][0])
        np.testing.assert_array_equal(results[0][1], results[1][1])


def _cut_after_use(x):
    y = x * 3
    x.stop_gradient = True
    return y + x * 2


@pytest.mark.parametrize("leaf", [True, False])
def test_argument_cut_after_use_like_eager(leaf):
    # eagerly a leaf set to stop_gradient=True takes no .grad at all (not even through `y`);
    # a non-leaf still passes the gradient of the ops before the write to its sources
    sf = dy2st.to_static(_cut_after_use)
    for v in (np.array([0.5, 1.5], "float32"), np.array([-2.0, 0.25], "float32")):
        grads = []
        for f in (_cut_after_use, sf):
            a = rt.to_tensor(v, stop_gradient=False)
            out = f(a if leaf else a * 5)
            out.sum().backward()
            grads.append(None if a.grad is None else a.grad.numpy())
        if leaf:
            assert grads == [None, None] and a.stop_gradient is True
        else:
            np.testing.assert_array_equal(grads[0], grads[1])
