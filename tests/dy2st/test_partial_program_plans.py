"""A converted function's inference plan is compiled on its first inference call: calls that need
gradients (a training loop) never build it, and the plan built later answers as eagerly."""
import numpy as np

import dy2st
import runtime as rt
from runtime import nn


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            h = h * 2.0
        return h


def test_inference_plan_built_on_first_inference_call_only():
    rt.seed(0)
    net = Net()
    static = dy2st.to_static(net)
    x = rt.to_tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype("float32"))
    static(x).sum().backward()  # needs gradients: the training segments run
    pp = static.forward.concrete_program.partial_program
    runner = pp.runner
    assert "run" not in vars(runner)  # not compiled: nothing ran it
    with rt.no_grad():
        got = static(x).numpy()
        h = net.fc(x)  # the eager reference (the sublayer is not converted)
        want = (h * 2.0 if h.sum() > 0 else h).numpy()
    assert "run" in vars(runner)  # compiled by the inference call, and kept
    np.testing.assert_array_equal(got, want)
