"""Writes into a tensor after an op used it: the op's gradient uses what it saw, or backward refuses."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def test_item_write_after_use_keeps_the_gradient_of_the_earlier_op():
    y = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    x = y * 1
    z = x * y
    x[0] = 100.0
    z.sum().backward()
    assert y.grad.numpy().tolist() == [2.0, 4.0]


def test_item_write_after_use_routes_gradient_through_the_old_producer():
    y = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    x = y * 2
    z = x + 0
    x[0] = 100.0
    z.sum().backward()
    assert y.grad.numpy().tolist() == [2.0, 2.0]


def test_set_value_after_use_keeps_the_gradient_of_the_earlier_op():
    w = rt.to_tensor([3.0], stop_gradient=False)
    x = rt.to_tensor([2.0], stop_gradient=False)
    y = w * x
    w.set_value(np.array([10.0], "float32"))
    y.backward()
    assert x.grad.numpy().tolist() == [3.0]


def test_optimizer_step_between_forward_and_backward_refuses():
    lin = rt.nn.Linear(1, 1)
    opt = rt.optimizer.SGD(0.5, parameters=lin.parameters())
    # One ordinary step first: from then on the optimizer updates the parameters' arrays in
    # place (its fused flat buffer), which is the case a recorded graph must notice.
    (lin(rt.to_tensor([[1.0]])) ** 2).sum().backward()
    opt.step()
    opt.clear_grad()
    loss = (lin(rt.to_tensor([[2.0]])) ** 2).sum()
    for p in lin.parameters():
        p.grad = rt.ones_like(p)
    opt.step()
    with pytest.raises(RuntimeError, match="changed in place after the op ran"):
        loss.backward()


def test_optimizer_step_before_converted_backward_refuses():
    lin = rt.nn.Linear(1, 1)
    sf = dy2st.to_static(lin)
    opt = rt.optimizer.SGD(0.5, parameters=lin.parameters())
    loss = (sf(rt.to_tensor([[2.0]])) ** 2).sum()
    for p in lin.parameters():
        p.grad = rt.ones_like(p)
    opt.step()
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()


def test_ordinary_training_loop_unaffected():
    lin = rt.nn.Linear(2, 1)
    opt = rt.optimizer.Adam(0.1, parameters=lin.parameters())
    x = rt.to_tensor([[1.0, 2.0]])
    losses = []
    for _ in range(3):
        loss = (lin(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[2] < losses[0]
