"""A LayerDict whose entries were put in another order between calls (`l = d.pop("a"); d["a"] = l`):
eagerly `for k, l in self.d.items()` walks the new order; the guard compared keys and objects but
not their order, so the cached Program ran the old order, silently. It retraces now."""
import numpy as np

import dy2st
import runtime as rt


class _Blocks(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.d = rt.nn.LayerDict({"a": rt.nn.Linear(2, 2), "b": rt.nn.Linear(2, 2)})

    def forward(self, x):
        for k, layer in self.d.items():
            x = layer(x) * (2.0 if k == "a" else 3.0)
        return x


def test_reordered_layer_dict_retraces():
    rt.seed(0)
    eager = _Blocks()
    rt.seed(0)
    net = _Blocks()
    sf = dy2st.to_static(net)
    for step in range(4):
        if step == 2:
            for m in (eager, net):
                m.d["a"] = m.d.pop("a")
        xe = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * (step + 1), stop_gradient=False)
        xs = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * (step + 1), stop_gradient=False)
        ye, ys = eager(xe), sf(xs)
        ye.sum().backward()
        ys.sum().backward()
        np.testing.assert_array_equal(ye.numpy(), ys.numpy())
        np.testing.assert_array_equal(xe.grad.numpy(), xs.grad.numpy())
    assert list(net.d.keys()) == ["b", "a"]
    assert len(net.forward.program_cache) == 2
