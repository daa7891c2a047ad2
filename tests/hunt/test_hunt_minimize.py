"""``loss.backward(); opt.minimize(loss)`` (Paddle's dygraph idiom) updates from one gradient:
minimize steps from ``.grad`` and does not run the backward a second time."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _batches():
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((4, 3)).astype("float32"), rng.integers(0, 2, (4,))) for _ in range(3)]


def _train(convert, use_minimize, opt_cls):
    rt.seed(0)
    net = rt.nn.Linear(3, 2)
    opt = opt_cls(learning_rate=0.1, parameters=net.parameters())

    def step(x, y):
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        if use_minimize:
            opt.minimize(loss)
        else:
            opt.step()
        opt.clear_grad()
        return loss

    fn = dy2st.to_static(step) if convert else step
    for x, y in _batches():
        fn(rt.to_tensor(x), rt.to_tensor(y))
    return [p.numpy().copy() for p in net.parameters()]


@pytest.mark.parametrize("opt_cls", [rt.optimizer.SGD, rt.optimizer.Adam])
@pytest.mark.parametrize("convert", [False, True])
def test_minimize_after_backward_is_one_step(convert, opt_cls):
    want = _train(False, False, opt_cls)
    got = _train(convert, True, opt_cls)
    for a, b in zip(want, got):
        assert a.tobytes() == b.tobytes()


def test_minimize_keeps_grad_and_applies_it_once():
    net = rt.nn.Linear(2, 1, bias_attr=False)
    w0 = net.weight.numpy().copy()
    opt = rt.optimizer.SGD(learning_rate=1.0, parameters=net.parameters())
    loss = net(rt.ones([1, 2])).sum()
    loss.backward()
    opt.minimize(loss)
    np.testing.assert_array_equal(net.weight.grad.numpy(), np.ones((2, 1), "float32"))  # as Paddle: [1, 1]
    np.testing.assert_array_equal(w0 - net.weight.numpy(), np.ones((2, 1), "float32"))


def test_minimize_without_backward_changes_nothing():
    net = rt.nn.Linear(2, 1)
    before = [p.numpy().copy() for p in net.parameters()]
    rt.optimizer.SGD(learning_rate=1.0, parameters=net.parameters()).minimize(net(rt.ones([1, 2])).sum())
    assert all(np.array_equal(a, p.numpy()) for a, p in zip(before, net.parameters()))


def test_minimize_no_grad_set_skips_parameters():
    net = rt.nn.Linear(2, 1)
    net.weight.set_value(np.full((2, 1), 0.25, "float32"))  # w - 1 exact: a random w made it order-dependent
    b0 = net.bias.numpy().copy()
    opt = rt.optimizer.SGD(learning_rate=1.0, parameters=net.parameters())
    net(rt.ones([1, 2])).sum().backward()
    w0 = net.weight.numpy().copy()
    opt.minimize(None, no_grad_set={net.bias})
    np.testing.assert_array_equal(net.bias.numpy(), b0)
    np.testing.assert_array_equal(w0 - net.weight.numpy(), np.ones((2, 1), "float32"))


def _two_steps(clear):
    a, b = rt.nn.Linear(2, 2), rt.nn.Linear(2, 2)
    opt = rt.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=a.parameters() + b.parameters())
    x = rt.ones([1, 2])
    (a(x) + b(x)).sum().backward()
    opt.step()
    clear(opt)
    a(x).sum().backward()  # b takes no gradient this step
    opt.step()


def test_step_skipping_a_parameter_paddle_would_move_warns_once():
    # Paddle's clear_grad() zeroes .grad, so its second step still applies b's momentum: ours
    # leaves b where it is, and says so rather than diverging silently
    with pytest.warns(UserWarning, match="Paddle's clear_grad\\(\\) zeroes gradients"):
        _two_steps(lambda opt: opt.clear_grad())


def test_no_warning_when_paddle_also_skips(recwarn):
    _two_steps(lambda opt: opt.clear_grad(set_to_zero=False))  # Paddle's None: its step skips b too
    assert not [w for w in recwarn if "clear_grad" in str(w.message)]
