"""Gradients of converted code equal eager ones, `None` included, on every path a run takes.

Gradient cuts (`no_grad` inside tensor branches and loop bodies, `stop_gradient` set on
attributes and items, `.detach()` in loops) and which tensors get no gradient at all: an
input or parameter that the run's path never links to the loss (an untaken branch of a
nested `if`, a loop body that ran zero times, a value a later branch dropped, a `return`
inside a loop) gets `.grad` None as eagerly, not zeros an optimizer would move it by.
Each case runs the converted function and the original on several inputs.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn


def t(a, stop_gradient=True):
    return rt.to_tensor(np.asarray(a, "float32"), stop_gradient=stop_gradient)


SCALES = (1.0, -1.0, 2.5, -0.2)


def grads_of(tensors):
    return [None if g is None else g.numpy().copy() for g in (v.grad for v in tensors)]


def assert_same_grads(got, want):
    for a, b in zip(got, want):
        assert (a is None) == (b is None), (a, b)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def check(fn, params=(), shape=(3,)):
    """Values, stop_gradient and gradients (inputs and ``params``) of to_static(fn) against fn."""
    sf = dy2st.to_static(fn)
    base = np.random.default_rng(0).standard_normal(shape).astype("float32")
    for scale in SCALES:
        results = []
        for run in (fn, sf):
            for p in params:
                p.clear_gradient()
            x = t(base * scale, stop_gradient=False)
            out = run(x)
            if not out.stop_gradient:
                out.sum().backward()
            results.append((out.numpy(), out.stop_gradient, grads_of([x] + list(params))))
        (want, want_sg, want_g), (got, got_sg, got_g) = results
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert got_sg == want_sg
        assert_same_grads(got_g, want_g)


def no_grad_in_tensor_if(x):
    y = x * 2
    if x.sum() > 0:
        with rt.no_grad():
            y = y * x
    else:
        y = y + x
    return y + x


def no_grad_in_tensor_while(x):
    y = x * 1
    i = 0
    while i < rt.to_tensor(2):
        with rt.no_grad():
            z = y * 3
        y = y + z * x
        i += 1
    return y


class Holder:
    pass


def stop_gradient_on_attribute(x):
    h = Holder()
    h.v = x * 2
    h.v.stop_gradient = True
    return h.v * x


def stop_gradient_on_list_item(x):
    out = [x * 2, x * 3]
    out[0].stop_gradient = True
    return out[0] * out[1]


def stop_gradient_on_tuple_item(x):
    out = (x * 2, x * 3)
    out[-1].stop_gradient = True
    return out[0] * out[1]


def stop_gradient_on_item_in_tensor_if(x):
    out = [x * 2, x * 3]
    if x.sum() > 0:
        out[1].stop_gradient = True
    return out[0] * out[1]


def detach_in_tensor_loop(x):
    y = x * 1
    i = 0
    while i < rt.to_tensor(3):
        y = y.detach() * 0.5 + y * x
        i += 1
    return y


@pytest.mark.parametrize("fn", [no_grad_in_tensor_if, no_grad_in_tensor_while, stop_gradient_on_attribute,
                                stop_gradient_on_list_item, stop_gradient_on_tuple_item,
                                stop_gradient_on_item_in_tensor_if, detach_in_tensor_loop])
def test_gradient_cuts_inside_control_flow_and_on_attributes_equal_eager(fn):
    check(fn)


class LayerWithCut(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        self.h = self.fc(x)
        self.h.stop_gradient = True
        return self.h * x + self.fc(x)


def test_stop_gradient_on_a_layer_attribute_equals_eager():
    rt.seed(0)
    net = LayerWithCut()
    check(lambda x: LayerWithCut.forward(net, x.reshape([1, 3])), params=net.parameters())


class Nested(nn.Layer):
    """Three sub-layers, each used on one path of a nested tensor `if`, one in a loop body."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c, self.d = (nn.Linear(3, 3) for _ in range(4))

    def forward(self, x):
        y = x
        if x.sum() > -100:
            if x.mean() > 0:
                y = self.a(x)
            else:
                y = self.b(x)
        else:
            y = self.c(x)
        i = rt.to_tensor(0)
        while i < (x.sum() > 0).astype("int64") * 2:
            y = self.d(y)
            i = i + 1
        return y


class DroppedLater(nn.Layer):
    """A layer used on the main path whose result a later tensor branch may drop."""

    def __init__(self):
        super().__init__()
        self.fc, self.g = nn.Linear(3, 3), nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x) * 0.5
        if x.sum() > 0:
            h = x * 2 - h.mean()
        else:
            h = x - 1
        return self.g(h)


class ReturnInLoop(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        y = x * 0.5
        z = self.fc(x)
        for _ in range(rt.to_tensor(2)):
            if x.sum() > 0:
                return y
        return y + z


@pytest.mark.parametrize("cls", [Nested, DroppedLater, ReturnInLoop])
def test_parameters_not_on_the_taken_path_get_none_like_eager(cls):
    rt.seed(1)
    net = cls()
    check(lambda x: cls.forward(net, x.reshape([1, 3])), params=net.parameters())


@pytest.mark.filterwarnings("ignore:.*had a gradient in an earlier step")  # a step skips a parameter on purpose
@pytest.mark.parametrize("opt", ["Adam", "Momentum"])
def test_untaken_nested_branch_parameters_stay_put_under_adam_and_momentum(opt):
    rt.seed(2)
    eager_net = Nested()
    static_net = Nested()
    static_net.set_state_dict(eager_net.state_dict())
    converted = dy2st.to_static(static_net)
    opts = [getattr(rt.optimizer, opt)(learning_rate=0.1, parameters=n.parameters())
            for n in (eager_net, static_net)]
    base = np.random.default_rng(3).standard_normal((2, 3)).astype("float32")
    for step, scale in enumerate((1.0, -1.0, 1.0, -2.0)):
        for run, o in ((eager_net, opts[0]), (converted, opts[1])):
            run(t(base * scale)).sum().backward()
            o.step()
            o.clear_grad()
        for (name, p), q in zip(eager_net.named_parameters(), static_net.parameters()):
            np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-5, atol=1e-6, err_msg=f"{name} step {step}")


class TwoHeads(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(3, 3), nn.Linear(3, 3)

    def forward(self, x):
        h = self.a(x)
        if x.sum() > 0:
            h = h * 2
        return h, self.b(x)


def test_parameters_only_an_unused_output_reaches_get_none_like_eager():
    rt.seed(4)
    net = TwoHeads()
    converted = dy2st.to_static(net)
    for scale in SCALES:
        x = t(np.full((2, 3), scale))
        got = []
        for run in (lambda v: TwoHeads.forward(net, v), converted):
            net.clear_gradients()
            run(x)[0].sum().backward()
            got.append(grads_of(net.parameters()))
        assert_same_grads(got[1], got[0])
        assert got[1][2] is None and got[1][0] is not None


def test_detached_output_comes_back_with_stop_gradient_true_as_eagerly():
    """A converted function's `.detach()`ed output (and one no input reaches) has stop_gradient=True, as
    eagerly; gradients through the other outputs are unchanged."""
    def f(x, w):
        y = x * w
        return y.detach(), y, (w * 0 + 3).detach() * y.detach()

    sf = dy2st.to_static(f)
    for k in (1.0, -2.0, 0.5):
        got = {}
        for name, fn in (("eager", f), ("static", sf)):
            x = rt.to_tensor(np.full(3, k, "float32"))
            x.stop_gradient = False
            w = rt.to_tensor(np.arange(3, dtype="float32"))
            w.stop_gradient = False
            a, b, c = fn(x, w)
            (a * b + c * b).sum().backward()
            got[name] = ([t.stop_gradient for t in (a, b, c)], x.grad.numpy(), w.grad.numpy())
        assert got["static"][0] == got["eager"][0] == [True, False, True]
        np.testing.assert_array_equal(got["static"][1], got["eager"][1])
        np.testing.assert_array_equal(got["static"][2], got["eager"][2])


def test_output_carried_through_a_no_grad_loop_keeps_its_gradient_when_the_loop_runs_zero_times():
    """`x` rebound under no_grad in a tensor loop: after zero trips it is the input itself, so its
    gradient reaches the input as eagerly (the output is differentiable on some path)."""
    def f(x, n):
        y = x * 0.5
        for i in range(n):
            with rt.no_grad():
                x = x + i * 0.25
        return y * 0.75, x - 0.5

    sf = dy2st.to_static(f)
    for trips in (0, 1, 3):
        got = {}
        for name, fn in (("eager", f), ("static", sf)):
            x = rt.to_tensor(np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3))
            x.stop_gradient = False
            a, b = fn(x, rt.to_tensor(trips))
            (a.sum() + (b * b).sum()).backward() if not b.stop_gradient else a.sum().backward()
            got[name] = (b.stop_gradient, x.grad.numpy())
        assert got["static"][0] == got["eager"][0]
        np.testing.assert_allclose(got["static"][1], got["eager"][1], rtol=1e-6)
