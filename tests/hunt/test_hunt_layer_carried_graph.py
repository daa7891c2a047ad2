"""A tensor the forward keeps on the Layer with its graph (`self.prev = h`, not detached) and adds
into the next call's result: eagerly the attribute is rebound, so the last call's graph still reaches
the earlier output, and backward runs through both calls. The converted forward wrote the new value
into the old tensor object in place, so the next backward refused ("changed in place")."""
import numpy as np

import dy2st
import runtime as rt


class _Carry(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)
        self.prev = None

    def forward(self, x):
        h = self.fc(x)
        if self.prev is not None:
            h = h + self.prev
        self.prev = h
        return h


def _run(net, layer, retain):
    out = []
    for k in (1, 2, -1):
        x = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * k, stop_gradient=False)
        y = net(x)
        y.sum().backward(retain_graph=retain)
        out.append((y.numpy(), x.grad.numpy(), layer.fc.weight.grad.numpy().copy(), layer.fc.bias.grad.numpy().copy()))
    return out


def test_state_kept_with_its_graph_backpropagates_through_earlier_calls():
    for retain in (False, True):
        rt.seed(0)
        eager = _Carry()
        want = _run(eager, eager, retain)
        rt.seed(0)
        layer = _Carry()
        got = _run(dy2st.to_static(layer), layer, retain)
        for a, b in zip(want, got):
            for u, v in zip(a, b):
                np.testing.assert_array_equal(u, v)
        # the second backward reaches the first call's fc too: 1 + (2 + 1) times x's row
        assert want[1][2].tolist() == [[4.0, 4.0], [-8.0, -8.0]]
