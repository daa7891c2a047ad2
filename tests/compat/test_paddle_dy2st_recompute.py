"""Scenarios of Paddle's test_jit_recompute: `fleet.utils.recompute` around a converted block, and a
PyLayer that re-runs a converted function in its backward, give eager values and gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.distributed.fleet.utils import recompute


def _block():
    rt.seed(3)
    return rt.nn.Sequential(rt.nn.Linear(6, 6), rt.nn.ReLU(), rt.nn.Linear(6, 1))


@pytest.mark.parametrize("seed", [0, 1])
def test_recompute_of_converted_block_matches_eager(seed):
    x = np.random.default_rng(seed).standard_normal((4, 6)).astype("float32")
    eager, conv = _block(), dy2st.to_static(_block())
    grads = []
    for net, wrap in ((eager, False), (conv, True)):
        xt = rt.to_tensor(x, stop_gradient=False)
        out = recompute(net, xt) if wrap else net(xt)
        out.mean().backward()
        grads.append([xt.grad.numpy()] + [p.grad.numpy() for p in net.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_recompute_passes_keywords_and_drops_its_own():
    def f(a, b=1.0):
        return a * b
    x = rt.to_tensor([1.0, 2.0])
    out = recompute(f, x, b=3.0, preserve_rng_state=True, use_reentrant=False)
    np.testing.assert_array_equal(out.numpy(), [3.0, 6.0])


class _Again(rt.autograd.PyLayer):
    @staticmethod
    def forward(ctx, fn, x, y):
        ctx.fn = fn
        ctx.save_for_backward(x, y)
        with rt.no_grad():
            return fn(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensor()
        with rt.enable_grad():
            x.stop_gradient = False
            y.stop_gradient = False
            out = ctx.fn(x, y)
        return tuple(rt.autograd.grad(out, [x, y], g))


def test_pylayer_rerunning_converted_function_in_backward():
    fn = dy2st.to_static(lambda x, y: x * y + rt.sin(x))
    rng = np.random.default_rng(5)
    xs, ys = rng.standard_normal((3, 3)).astype("float32"), rng.standard_normal((3, 3)).astype("float32")
    got = []
    for apply in (True, False):
        x, y = rt.to_tensor(xs, stop_gradient=False), rt.to_tensor(ys, stop_gradient=False)
        (_Again.apply(fn, x, y) if apply else fn(x, y)).sum().backward()
        got.append((x.grad.numpy(), y.grad.numpy()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6)
    np.testing.assert_allclose(got[1][0], ys + np.cos(xs), rtol=1e-6)
