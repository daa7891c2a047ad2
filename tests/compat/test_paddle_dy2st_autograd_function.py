"""Scenarios of Paddle's test_autograd_function (torch-style ``Function``, here a ``PyLayer``):
several inputs and saved tensors, a function kept on ``ctx``, ``mark_non_differentiable`` and
``set_materialize_grads(False)``, eagerly and converted, values and input gradients. Paddle's own
converted code refuses ``mark_non_differentiable`` (NotImplementedError); here it works as eagerly."""
import numpy as np

import dy2st
import runtime as rt
from runtime.autograd import PyLayer
from tests.compat.helpers import arr, check

ARGS = [(arr(2, 3, dtype="float64"), arr(2, 3, seed=1, dtype="float64")),
        (arr(2, 3, seed=2, dtype="float64", lo=-3, hi=3), arr(2, 3, seed=3, dtype="float64"))]


class CusTanh2(PyLayer):
    @staticmethod
    def forward(ctx, x1, x2):
        y1, y2 = rt.tanh(x1), rt.tanh(x2)
        ctx.save_for_backward(y1, y2)
        return y1 + y2

    @staticmethod
    def backward(ctx, dy):
        y1, y2 = ctx.saved_tensor()
        return dy * (1 - rt.square(y1)), dy * (1 - rt.square(y2))


class TanhWithFunc(PyLayer):
    @staticmethod
    def forward(ctx, x, func=rt.square):
        ctx.func = func
        y = rt.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - ctx.func(y))


class NonDiff(PyLayer):
    @staticmethod
    def forward(ctx, x):
        a, b = x + x, x + x + x
        ctx.mark_non_differentiable(a)
        return a, b

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        return 3 * grad_b


class NoMaterialize(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x + x + x, x + x

    @staticmethod
    def backward(ctx, g1, g2):
        # an output without a gradient arrives as None (not zeros): each case gives a different grad
        if g2 is None:
            return g1
        return 100 * g2 if g1 is None else g1 + 100 * g2


def test_multiple_inputs_and_saved_tensors():
    check(lambda a, b: CusTanh2.apply(a, b), *ARGS, grad=True)


def test_function_kept_on_ctx():
    check(lambda a, b: TanhWithFunc.apply(a, rt.square) + TanhWithFunc.apply(b, rt.abs), *ARGS, grad=True)


def test_mark_non_differentiable_used_and_unused():
    check(lambda a, b: NonDiff.apply(a)[1] + b, *ARGS, grad=True)
    check(lambda a, b: NonDiff.apply(a)[0] * 2.0 + b, *ARGS, grad=True)


def test_non_differentiable_output_gives_no_gradient_in_converted_code():
    # the marked output's users must not send zeros to the input: its gradient stays None as eagerly
    fn = lambda a, b: (NonDiff.apply(a)[0] * 0.5 + b, NonDiff.apply(a)[0])  # noqa: E731
    for f in (fn, dy2st.to_static(fn)):
        a = rt.to_tensor(ARGS[0][0], stop_gradient=False)
        b = rt.to_tensor(ARGS[0][1], stop_gradient=False)
        y, marked = f(a, b)
        assert marked.stop_gradient
        y.sum().backward()
        assert a.gradient() is None
        np.testing.assert_array_equal(b.gradient(), np.ones([2, 3]))


def test_set_materialize_grads_false():
    check(lambda a, b: NoMaterialize.apply(a)[0] + b, *ARGS, grad=True)
    check(lambda a, b: NoMaterialize.apply(a)[0] + NoMaterialize.apply(b)[1], *ARGS, grad=True)
