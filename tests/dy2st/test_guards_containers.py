"""Guards on state a trace reads through plain Python values: a config object's attributes, layers
kept in plain lists/dicts, global and closure tensors.

Each test changes that state between calls and compares the converted function with the same
code run eagerly (values, and gradients where a layer is swapped) on several inputs; a Program
that kept the old state would compute the old thing without an error.
"""
import dataclasses
import types

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn


def t(a, stop_gradient=True):
    return rt.to_tensor(np.asarray(a, "float32"), stop_gradient=stop_gradient)


def inputs():
    rng = np.random.default_rng(0)
    return [t(rng.standard_normal((2, 3)) * s) for s in (1.0, -2.0, 3.0)]


def assert_like_eager(sf, eager):
    for x in inputs():
        np.testing.assert_allclose(sf(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)


class Cfg:
    def __init__(self):
        self.flag, self.scale = True, 2.0


@dataclasses.dataclass
class DataCfg:
    flag: bool = True
    scale: float = 2.0


class Configured(nn.Layer):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        if self.cfg.flag:
            h = h * self.cfg.scale
        return h


@pytest.mark.parametrize("make", [Cfg, DataCfg, lambda: types.SimpleNamespace(flag=True, scale=2.0)])
def test_attribute_of_a_plain_config_object_on_a_layer_retraces(make):
    cfg = make()
    net = Configured(cfg)
    sf = dy2st.to_static(net)
    for flag, scale in ((True, 2.0), (False, 2.0), (True, -1.0), (True, 2.0)):
        cfg.flag, cfg.scale = flag, scale
        assert_like_eager(sf, lambda x: Configured.forward(net, x))
    assert sf.forward.get_traced_count() == 3  # the first state again reuses its Program


def test_explain_names_the_config_attribute_that_changed():
    cfg = Cfg()
    sf = dy2st.to_static(Configured(cfg))
    x = inputs()[0]
    sf(x)
    cfg.flag = False
    assert "self.cfg.flag" in sf.forward.explain(x)


class Stack(nn.Layer):
    def __init__(self, kind):
        super().__init__()
        blocks = [nn.Linear(3, 3), nn.Linear(3, 3)]
        self.kind = kind
        self.blocks = blocks if kind == "list" else {"a": blocks[0], "b": blocks[1]}

    def forward(self, x):
        for b in (self.blocks if self.kind == "list" else self.blocks.values()):
            x = b(x)
        return x


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_layer_replaced_in_a_plain_container_runs_the_new_one(kind):
    rt.seed(1)
    net = Stack(kind)
    sf = dy2st.to_static(net)
    eager = lambda x: Stack.forward(net, x)  # noqa: E731
    assert_like_eager(sf, eager)
    key = 1 if kind == "list" else "b"
    net.blocks[key] = nn.Linear(3, 3)
    assert_like_eager(sf, eager)
    # Gradients reach the new layer, as eagerly.
    x = t(np.ones((2, 3)))
    sf(x).sum().backward()
    got = net.blocks[key].weight.grad.numpy().copy()
    net.blocks[key].clear_gradients()  # a plain container's layers are not net's sub-layers
    eager(x).sum().backward()
    np.testing.assert_allclose(got, net.blocks[key].weight.grad.numpy(), rtol=1e-5)
    if kind == "list":
        net.blocks.append(nn.Linear(3, 3))
        assert_like_eager(sf, eager)
    net.blocks[key] = nn.Linear(3, 3)
    assert "items of self.blocks" in sf.forward.explain(x)


def test_attribute_the_forward_only_writes_into_a_config_does_not_retrace():
    class Counting(nn.Layer):
        def __init__(self):
            super().__init__()
            self.cfg = Cfg()
            self.cfg.tag = object()

        def forward(self, x):
            return x * self.cfg.scale

    net = Counting()
    sf = dy2st.to_static(net)
    for x in inputs():
        sf(x)
        net.cfg.unread = object()  # not read by the trace: no retrace
    assert sf.forward.get_traced_count() == 1


GLOBAL_CFG = Cfg()
GLOBAL_BIAS = rt.to_tensor(np.array([1.0, 2.0, 3.0], "float32"))


def uses_globals(x):
    if GLOBAL_CFG.flag:
        return x + GLOBAL_BIAS
    return x - GLOBAL_BIAS


def test_global_config_object_and_global_tensor_value_are_seen():
    global GLOBAL_BIAS
    sf = dy2st.to_static(uses_globals)
    old = GLOBAL_BIAS
    try:
        assert_like_eager(sf, uses_globals)
        GLOBAL_CFG.flag = False
        assert_like_eager(sf, uses_globals)
        GLOBAL_BIAS.set_value(np.array([-5.0, 0.5, 7.0], "float32"))  # same tensor, new value
        assert_like_eager(sf, uses_globals)
        GLOBAL_BIAS = rt.to_tensor(np.array([9.0, 9.0, 9.0], "float32"))  # another tensor
        assert_like_eager(sf, uses_globals)
    finally:
        GLOBAL_CFG.flag, GLOBAL_BIAS = True, old


def test_closure_tensor_value_and_cell_are_seen():
    bias = t([1.0, 2.0, 3.0])
    holder = [nn.Linear(3, 3)]

    def f(x):
        return holder[0](x) + bias

    sf = dy2st.to_static(f)
    assert_like_eager(sf, f)
    bias.set_value(np.array([4.0, -4.0, 0.0], "float32"))
    assert_like_eager(sf, f)
    bias = t([0.0, 0.0, 1.0])  # rebinds the cell
    assert_like_eager(sf, f)
    holder[0] = nn.Linear(3, 3)
    assert_like_eager(sf, f)


class Runner:
    def __init__(self):
        self.cfg = Cfg()
        self.layers = [nn.Linear(3, 3)]

    def run(self, x):
        h = self.layers[0](x)
        return h * self.cfg.scale if self.cfg.flag else h


def test_plain_object_bound_as_self_guards_its_config_and_layer_list():
    rt.seed(2)
    obj = Runner()
    sf = dy2st.to_static(obj.run)
    assert_like_eager(sf, obj.run)
    obj.cfg.flag = False
    assert_like_eager(sf, obj.run)
    obj.layers[0] = nn.Linear(3, 3)
    assert_like_eager(sf, obj.run)
