"""A training step under ``@to_static`` that eager code would refuse, or that a Program cannot
express: a clear error (at the user's line where it is raised while the Program is built)."""
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F

from test_train_step_compiled import OPTIMIZERS, Net, O, _batches, _trajectory


def _raises_at_user_line(fn, exc, match, *args):
    with pytest.raises(exc, match=match) as info:
        fn(*args)
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "test_train_step_errors.py" in text


def test_backward_in_a_tensor_branch_is_a_clear_error():
    net = Net()
    opt = O.SGD(0.1, parameters=net.parameters())

    @dy2st.to_static
    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        if loss > 0:
            loss.backward()
            opt.step()
        return loss
    (x, y), = _batches(1)
    _raises_at_user_line(step, NotImplementedError, "tensor-dependent", rt.to_tensor(x), rt.to_tensor(y))


def test_backward_with_grad_tensor_or_input_gradient_is_a_clear_error():
    net = Net()

    @dy2st.to_static
    def seeded(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward(rt.ones([]))
        return loss

    @dy2st.to_static
    def wants_input_grad(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        return loss
    (x, y), = _batches(1)
    _raises_at_user_line(seeded, NotImplementedError, "grad_tensor", rt.to_tensor(x), rt.to_tensor(y))
    xt = rt.to_tensor(x)
    xt.stop_gradient = False
    with pytest.raises(NotImplementedError, match="needs a gradient"):
        wants_input_grad(xt, rt.to_tensor(y))


def test_minimize_with_parameters_is_a_clear_error():
    net = Net()
    opt = O.SGD(0.1, parameters=net.parameters())

    @dy2st.to_static
    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        opt.minimize(loss, parameters=net.parameters())
        return loss
    (x, y), = _batches(1)
    _raises_at_user_line(step, NotImplementedError, "minimize", rt.to_tensor(x), rt.to_tensor(y))


def test_train_step_under_no_grad_raises_as_eager():
    net = Net()
    opt = O.SGD(0.1, parameters=net.parameters())

    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss
    (x, y), = _batches(1)
    before = [p.numpy().copy() for p in net.parameters()]
    traced = dy2st.to_static(step)
    traced(rt.to_tensor(x), rt.to_tensor(y))  # built with gradients on, then called under no_grad
    before_static = [p.numpy().copy() for p in net.parameters()]
    with rt.no_grad(), pytest.raises(RuntimeError, match="does not need a gradient"):
        traced(rt.to_tensor(x), rt.to_tensor(y))
    assert all(a.tobytes() == p.numpy().tobytes() for a, p in zip(before_static, net.parameters()))
    for p, v in zip(net.parameters(), before):
        p.set_value(v)
    for fn in (step, dy2st.to_static(step)):
        with rt.no_grad(), pytest.raises(RuntimeError, match="does not need a gradient"):
            fn(rt.to_tensor(x), rt.to_tensor(y))
    assert all(a.tobytes() == p.numpy().tobytes() for a, p in zip(before, net.parameters()))


def test_backward_over_scope_parameters_points_at_append_backward():
    main, startup = rt.static.Program(), rt.static.Program()
    rt.enable_static()
    try:
        with rt.static.program_guard(main, startup):
            x = rt.static.data("x", [4, 3], "float32")
            loss = rt.mean(rt.static.nn.fc(x, 2))
            with pytest.raises(NotImplementedError, match="append_backward"):
                loss.backward()
    finally:
        rt.disable_static()


def test_backward_after_a_step_that_changed_the_forward_inputs_raises_as_eager():
    """Eager raises once a step writes in place what the forward read (its first real step re-lays
    the parameters out instead, so it raises at the third call); the Program says so when built."""
    make = OPTIMIZERS["sgd"]
    for convert in (False, True):
        with pytest.raises(RuntimeError, match="changed|in place"):
            _trajectory(make, convert, body="stale", steps=3)
