"""Gradients of a tensor read inside a tensor `while` or `cond` and outside it (a weight used at every
step and again after the loop, as the CRF transitions of Paddle's test_lac are, or a loop's starting
value used after it too): eager autograd adds every term onto one running sum, latest op first, so
the converted backward continues that sum inside the loop body and the branch instead of adding
their terms as one value (which rounded differently in the last bit)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def weight_in_loop_and_after(w, x, n):
    a = x
    for t in range(1, n):
        a = rt.logsumexp(a.unsqueeze(2) + w.unsqueeze(0), axis=1) + x * t
    return a.sum() + rt.matmul(x, w).sum() * 0.37


def weight_twice_per_step(w, x, n):
    a = x
    for _ in range(n):
        a = rt.matmul(a, w) * 0.3 + rt.matmul(x, w) * 0.1 + x
    return a.sum() + (rt.matmul(x * 1.3, w)).sum() * 0.7


def carry_start_used_after(w, x, n):
    a = x
    for _ in range(n):
        a = rt.matmul(a, w) * 0.5 + a * 0.3 + a * a * 0.1
    return a.sum() + rt.matmul(x, w).sum() + (x * 1.3).sum()


def weight_twice_in_a_branch(w, x, n):
    if x.sum() > n.astype("float32") - 100:
        y = rt.matmul(x, w) * 0.3 + rt.matmul(x * 1.7, w)
    else:
        y = x
    return y.sum() + rt.matmul(x, w).sum() * 0.37


def weight_only_outside_the_branch_taken(w, x, n):
    if x.sum() > 1000:
        y = rt.matmul(x, w)
    else:
        y = x * 2
    return y.sum() + rt.matmul(x, w).sum() * 0.37 + (w * w).sum()


FNS = [weight_in_loop_and_after, weight_twice_per_step, carry_start_used_after, weight_twice_in_a_branch,
       weight_only_outside_the_branch_taken]


def _grads(fn, w0, x0, n, convert):
    w = rt.to_tensor(w0, stop_gradient=False)
    x = rt.to_tensor(x0, stop_gradient=False)
    out = (dy2st.to_static(fn) if convert else fn)(w, x, rt.to_tensor(n))
    out.backward()
    return out.numpy(), w.grad.numpy(), x.grad.numpy()


@pytest.mark.parametrize("fn", FNS, ids=[f.__name__ for f in FNS])
def test_gradients_bitwise_as_eager(fn):
    for seed, n in ((0, 7), (1, 3), (2, 1), (3, 0)):
        rng = np.random.default_rng(seed)
        w0 = rng.uniform(-1, 1, (5, 5)).astype("float32")
        x0 = rng.uniform(-1, 1, (4, 5)).astype("float32")
        for want, got in zip(_grads(fn, w0, x0, n, False), _grads(fn, w0, x0, n, True)):
            np.testing.assert_array_equal(got, want)
