"""``runtime.nn.layer.STATE_VERSION`` and the guards gated on it.

The generated guard check re-walks the guarded layers only when the version moved since they
last held.  Every way of changing a layer must therefore move it: each test below makes the
converted model hit its generated call first (so the gate is armed), changes one thing, and
checks that the next call retraces and computes what eager computes.
"""
import collections
import copy

import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn
from runtime.nn.layer import STATE_VERSION


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.5)
        self.scale = 2.0

    def forward(self, x):
        return self.drop(F.relu(self.fc(x))) * self.scale


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([Block(), Block()])
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def x_of(seed=0):
    return rt.to_tensor(np.random.default_rng(seed).standard_normal((3, 4)).astype("float32"))


def armed():
    """An eval-mode converted Net whose generated call has served a call (the gate is armed)."""
    rt.seed(0)
    net = dy2st.to_static(Net())
    net.eval()
    for _ in range(3):
        net(x_of())
    assert net.forward._hit is not None
    return net


def check_retraced(net, before):
    x = x_of(1)
    out = net(x).numpy()
    assert net.forward.get_traced_count() == before + 1
    with rt.no_grad():
        want = type(net).forward(net, x).numpy()
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


def test_every_write_draws_a_new_version():
    layer = nn.Linear(2, 2)
    seen = [STATE_VERSION[0]]

    def moved():
        now = STATE_VERSION[0]
        assert now is not seen[-1]
        seen.append(now)

    layer.flag = 1
    moved()
    layer._parameters["extra"] = None  # a table written directly
    moved()
    layer._parameters.pop("extra")
    moved()
    h = layer.register_forward_pre_hook(lambda *a: None)
    moved()
    h.remove()
    moved()
    layer.eval()
    moved()
    del layer.flag
    moved()
    c = copy.deepcopy(layer)
    assert type(c._parameters) is type(layer._parameters) and type(c._forward_pre_hooks) is type(layer._forward_pre_hooks)


def test_replacing_a_sublayer_retraces():
    net = armed()
    n = net.forward.get_traced_count()
    net.blocks[1] = Block()
    net.blocks[1].eval()
    check_retraced(net, n)


def test_eval_of_a_sublayer_retraces():
    net = armed()
    net.train()
    net(x_of())
    net(x_of())
    n = net.forward.get_traced_count()
    net.blocks[0].drop.eval()
    rt.seed(3)
    x = x_of(1)
    out = net(x).numpy()
    assert net.forward.get_traced_count() == n + 1
    rt.seed(3)
    np.testing.assert_allclose(out, type(net).forward(net, x).numpy(), rtol=1e-6, atol=1e-6)


def test_flipping_stop_gradient_retraces():
    net = armed()
    net.train()
    for b in net.blocks:
        b.drop.eval()
    net(x_of())
    net(x_of())
    n = net.forward.get_traced_count()
    net.head.weight.stop_gradient = True
    x = x_of(1)
    net(x).sum().backward()
    assert net.forward.get_traced_count() == n + 1
    assert net.head.weight.grad is None and net.head.bias.grad is not None


def test_a_deep_copy_runs_its_own_parameters():
    net = armed()
    twin = copy.deepcopy(net)
    twin.head.weight.set_value(np.zeros((4, 2), "float32"))
    np.testing.assert_allclose(twin(x_of(1)).numpy(), np.broadcast_to(twin.head.bias.numpy(), (3, 2)))
    assert not np.allclose(net(x_of(1)).numpy(), twin(x_of(1)).numpy())


def test_instance_forward_override_retraces():
    net = armed()
    n = net.forward.get_traced_count()
    net.blocks[0].forward = lambda x: x * 0.0
    check_retraced(net, n)


def test_registering_a_hook_retraces_each_time():
    net = armed()
    for k in range(3):
        n = net.forward.get_traced_count()
        net.head.register_forward_post_hook(lambda layer, inputs, out, k=k: out + float(k + 1))
        check_retraced(net, n)
        net(x_of())  # served by the new Program's generated call


def test_a_plain_attribute_set_or_written_into_dict_retraces():
    net = armed()
    n = net.forward.get_traced_count()
    net.blocks[0].scale = 3.0
    check_retraced(net, n)
    net(x_of())
    net.blocks[0].__dict__["scale"] = 4.0  # bypasses setattr: the version does not move
    check_retraced(net, n + 1)


def test_a_table_replaced_by_a_plain_dict_is_checked_on_every_call():
    net = armed()
    n = net.forward.get_traced_count()
    net.head._parameters = collections.OrderedDict(net.head._parameters)  # not a StateTable any more
    check_retraced(net, n)
    net(x_of())
    net.head._parameters["bias"] = rt.nn.Linear(4, 2).bias  # no version bump: still caught
    check_retraced(net, n + 1)


def test_a_mutable_attribute_changed_in_place_retraces():
    class Scaled(nn.Layer):
        def __init__(self):
            super().__init__()
            self.factors = [1.0, 2.0]

        def forward(self, x):
            return x * self.factors[1]

    layer = dy2st.to_static(Scaled())
    for _ in range(3):
        layer(x_of())
    n = layer.forward.get_traced_count()
    layer.factors[1] = 5.0  # in place: no version bump
    np.testing.assert_allclose(layer(x_of()).numpy(), x_of().numpy() * 5.0)
    assert layer.forward.get_traced_count() == n + 1
