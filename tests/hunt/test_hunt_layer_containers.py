"""A list or dict attribute of the Layer the traced forward changes in place (`self.hist.append(1)`,
`self.seen[k] = 1`) and reads (`len(self.hist)`): eagerly every call changes it again and reads the
new contents; the cached Program had baked in the contents of the one trace, silently (a guard made
after the trace held). A guard taken before the trace now retraces the next call."""
import numpy as np

import dy2st
import runtime as rt


class _History(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(2, 2)
        self.hist = []
        self.seen = {}

    def forward(self, x):
        self.hist.append(1)
        self.seen[len(self.hist) % 2] = True
        return self.fc(x) * len(self.hist) + len(self.seen)


def test_layer_lists_and_dicts_changed_by_forward_change_at_every_call():
    rt.seed(0)
    eager = _History()
    rt.seed(0)
    net = _History()
    converted = dy2st.to_static(net)
    for k in range(4):
        xe = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * (k + 1), stop_gradient=False)
        xs = rt.to_tensor(np.array([[1.0, -2.0]], "float32") * (k + 1), stop_gradient=False)
        ye, ys = eager(xe), converted(xs)
        ye.sum().backward()
        ys.sum().backward()
        np.testing.assert_array_equal(ye.numpy(), ys.numpy())
        np.testing.assert_array_equal(xe.grad.numpy(), xs.grad.numpy())
        np.testing.assert_array_equal(eager.fc.weight.grad.numpy(), net.fc.weight.grad.numpy())
    assert net.hist == [1] * 4 and net.seen == {0: True, 1: True}
