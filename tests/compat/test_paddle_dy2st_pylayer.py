"""PyLayer calls from Paddle's dygraph-to-static suite, eagerly and converted: Tensors given as keyword
arguments are inputs too (after the positional ones), forward may return numbers, None and strings
beside its Tensors (backward gets one gradient per Tensor output), and a list input gets a list of
gradients from backward. Values and input gradients match eager exactly."""
import numpy as np

import dy2st
import runtime as rt
from runtime.autograd import PyLayer


class _Blend(PyLayer):
    @staticmethod
    def forward(ctx, a, b):
        return 2 * a - b / 4

    @staticmethod
    def backward(ctx, dy):
        return dy * 3, rt.cos(dy)  # not the true derivative: proves this rule is the one used


class _Mixed(PyLayer):
    @staticmethod
    def forward(ctx, a, b, fn):
        ya, yb = fn(a), fn(b)
        ctx.save_for_backward(ya, yb)
        return 7, None, ya, yb, "tag"

    @staticmethod
    def backward(ctx, dya, dyb):
        ya, yb = ctx.saved_tensor()
        return dya * (1 - ya * ya), dyb * 2.0


class _Nested(PyLayer):
    @staticmethod
    def forward(ctx, pair, c):
        ctx.save_for_backward(pair[0], c)
        return [rt.tanh(pair[0]), pair[1] * 3.0, c * c]

    @staticmethod
    def backward(ctx, g0, g1, g2):
        p0, c = ctx.saved_tensor()
        return [g0 * (1 - rt.tanh(p0) ** 2), g1 * 5.0], g2 * 2 * c


def _kwargs_only(a, b):
    return _Blend.apply(a=b, b=a)


def _mixed_kw(a, b):
    return _Blend.apply(a, b=b * 1.5)


def _mixed_outputs(a, b):
    out = _Mixed.apply(a, b, rt.tanh)
    assert out[0] == 7 and out[1] is None and out[4] == "tag"
    return out[2] + out[3]


def _nested(a, b, c):
    z = _Nested.apply([a, b], c)
    return z[0] + z[1] + z[2]


def _check(fn, shapes, seed):
    rng = np.random.default_rng(seed)
    data = [rng.standard_normal(s).astype("float32") for s in shapes]
    results = []
    for f in (fn, dy2st.to_static(fn)):
        xs = [rt.to_tensor(d, stop_gradient=False) for d in data]
        y = f(*xs)
        weights = np.random.default_rng(seed + 100).standard_normal(y.shape).astype("float32")
        (y * rt.to_tensor(weights)).sum().backward()
        results.append((y.numpy(), [x.grad.numpy() for x in xs]))
    (ye, ge), (ys, gs) = results
    np.testing.assert_array_equal(ys, ye)
    for a, b in zip(gs, ge):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_keyword_tensors_are_inputs():
    for seed in range(3):
        _check(_kwargs_only, [[2, 3], [2, 3]], seed)
        _check(_mixed_kw, [[4], [4]], seed)
    # the keyword order decides which gradient goes where: a (given as b=) gets cos(dy)
    a, b = rt.to_tensor([1.0, 2.0], stop_gradient=False), rt.to_tensor([3.0, 4.0], stop_gradient=False)
    _kwargs_only(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos([1.0, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 3.0])


def test_non_tensor_outputs_pass_through():
    for seed in range(3):
        _check(_mixed_outputs, [[2, 3], [2, 3]], seed)


def test_list_input_takes_a_list_of_gradients():
    for seed in range(3):
        _check(_nested, [[3, 2], [3, 2], [3, 2]], seed)
