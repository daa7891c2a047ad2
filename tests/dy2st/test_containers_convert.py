"""User layers inside Sequential / LayerList / LayerDict, and layers with hooks, are converted
when called from a converted forward (tensor-dependent `if`s inside them become cond ops)."""
import numpy as np
import pytest

import dy2st
import runtime as rt


class Gate(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc(x)
        return -x


class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = rt.nn.Sequential(Gate(), rt.nn.ReLU(), Gate())
        self.ll = rt.nn.LayerList([Gate(), Gate()])
        self.ld = rt.nn.LayerDict({"a": Gate(), "b": Gate()})
        self.hooked = Gate()
        self.hooked.register_forward_post_hook(lambda layer, inputs, out: out * 3)

    def forward(self, x):
        y = self.seq(x)
        for layer in self.ll:
            y = layer(y)
        y = self.ld["a"](y) + self.ld["b"](x)
        return self.hooked(y)


def test_layers_in_containers_are_converted():
    rt.seed(1)
    net = Net()
    static = dy2st.to_static(Net())
    static.set_state_dict(net.state_dict())
    for a in ([[1.0, 2.0]], [[-1.0, -2.0]], [[3.0, -5.0]], [[0.5, -0.1]]):
        x = rt.to_tensor(a)
        np.testing.assert_allclose(static(x).numpy(), net(x).numpy(), rtol=1e-5)
    prog = static.forward.program_cache.last().main_program
    assert sum(op.type == "cond" for op in prog.global_block().ops) >= 7


def test_layer_dict_semantics():
    a, b, c = rt.nn.Linear(1, 1), rt.nn.ReLU(), rt.nn.Tanh()
    d = rt.nn.LayerDict([("a", a), ("b", b)])
    assert list(d) == ["a", "b"] and len(d) == 2 and "a" in d and d["b"] is b
    d["c"] = c
    assert list(d.keys()) == ["a", "b", "c"] and list(d.values()) == [a, b, c]
    assert d.pop("b") is b and list(d) == ["a", "c"]
    del d["a"]
    d.update({"z": a})
    assert list(d.items()) == [("c", c), ("z", a)]
    assert len(d.parameters()) == 2 and "z.weight" in d.state_dict()
    d.clear()
    assert len(d) == 0
    with pytest.raises(ValueError, match="pair"):
        d.update([a])
