"""``param.grad`` read inside a converted function is the value of each call, as eagerly.

Before, the Tensor seen while tracing was bound into the Program: after ``clear_grad()`` the
next backward made a new ``.grad`` and the Program kept reading the old one (silently), and
``.grad`` read after a ``loss.backward()`` made in the Program was None.
"""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn
from tests.error_helpers import line_of, notes


def _net():
    rt.seed(0)
    return nn.Linear(4, 3)


def _inputs(n=4):
    return [rt.to_tensor(np.full((2, 4), 0.5 * i - 0.7, "float32")) for i in range(n)]


def _run(convert, make_step, warm_up):
    net = _net()
    opt = rt.optimizer.SGD(0.1, parameters=net.parameters())
    if warm_up:  # a .grad set before the first call
        net(_inputs(1)[0]).sum().backward()
    step = make_step(net, opt)
    f = dy2st.to_static(step) if convert else step
    outs = [[np.asarray(o.numpy()) for o in f(x)] for x in _inputs()]
    return outs, [p.numpy() for p in net.parameters()], f


def _same(make_step, warm_up):
    (want, wp, _), (got, gp, f) = _run(False, make_step, warm_up), _run(True, make_step, warm_up)
    for a, b in zip(want, got):
        for x, y in zip(a, b):
            np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-6)
    for x, y in zip(wp, gp):
        np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-6)
    return f


def _after_backward(net, opt):
    def step(x):
        loss = (net(x) ** 2).mean()
        loss.backward()
        g = net.weight.grad.sum() + net.bias.grad.abs().sum()
        opt.step()
        opt.clear_grad()
        return loss, g
    return step


def _before_and_after(net, opt):
    def step(x):
        before = net.weight.grad.sum() if net.weight.grad is not None else rt.zeros([])
        loss = (net(x) ** 2).mean()
        loss.backward()
        after = net.weight.grad.sum()
        loss2 = net(x).mean()
        loss2.backward()
        again = net.weight.grad.sum()
        opt.step()
        opt.clear_grad()
        return before, after, again, (net.weight.grad is None) + rt.zeros([])
    return step


@pytest.mark.parametrize("warm_up", [False, True])
@pytest.mark.parametrize("make_step", [_after_backward, _before_and_after])
def test_grad_read_in_training_step_is_each_calls(make_step, warm_up):
    f = _same(make_step, warm_up)
    ops = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert "read_grad" in ops


def test_grad_norm_function_follows_eager_backward_outside():
    """A converted function that only reads .grad (backward runs eagerly outside) reads each call's
    gradient, and retraces when .grad's presence changes (None after clear_grad)."""
    results = {}
    for convert in (False, True):
        net = _net()

        def grad_norm():
            if net.weight.grad is None:
                return rt.zeros([])
            return (net.weight.grad ** 2).sum().sqrt()
        f = dy2st.to_static(grad_norm) if convert else grad_norm
        seen = []
        for x in _inputs():
            (net(x) ** 2).sum().backward()
            seen.append(float(f()))
            net.clear_gradients()
            seen.append(float(f()))
        results[convert] = seen
    np.testing.assert_allclose(results[True], results[False], rtol=1e-6)
    assert results[False][1] == 0.0 and results[False][0] > 0


def test_manual_sgd_from_grad_reads():
    def make_step(net, opt):
        def step(x):
            loss = (net(x) ** 2).mean()
            loss.backward()
            with rt.no_grad():
                for p in net.parameters():
                    p.set_value(p - 0.1 * p.grad)
            net.clear_gradients()
            return (loss,)
        return step
    _same(make_step, False)


def test_writes_into_grad_are_refused_at_the_users_line():
    net = _net()

    @dy2st.to_static
    def scale_grads(x):
        (net(x) ** 2).mean().backward()
        net.weight.grad.scale_(0.5)
        return net.weight.grad.sum()

    with pytest.raises(NotImplementedError, match=r"in-place write into a tensor's .grad") as info:
        scale_grads(_inputs(1)[0])
    assert f"line {line_of(scale_grads.dygraph_function, 'scale_(0.5)')}" in notes(info.value)

    @dy2st.to_static
    def set_grads(x):
        (net(x) ** 2).mean().backward()
        net.weight.grad = net.weight.grad * 0.5
        return net.weight.grad.sum()

    with pytest.raises(NotImplementedError, match=r"assigning a tensor's .grad") as info:
        set_grads(_inputs(1)[0])
    assert f"line {line_of(set_grads.dygraph_function, 'grad = net')}" in notes(info.value)


def test_grad_of_values_and_inputs_inside_converted_code():
    """A computed value's .grad is None, as eagerly (backward fills leaves only); an argument's is the
    caller's tensor's, which the Program does not hold: a clear error at the user's line."""
    @dy2st.to_static
    def computed(x):
        y = x * 2
        return y + 1 if y.grad is None else y

    x = rt.to_tensor(np.ones(3, "float32"))
    np.testing.assert_array_equal(computed(x).numpy(), np.full(3, 3.0, "float32"))

    @dy2st.to_static
    def argument(x):
        return x.grad + 1

    with pytest.raises(AttributeError, match=r"reading .grad of the input 'x'") as info:
        argument(x)
    assert f"line {line_of(argument.dygraph_function, 'x.grad + 1')}" in notes(info.value)
