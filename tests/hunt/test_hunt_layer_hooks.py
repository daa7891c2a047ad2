"""Forward hooks: a hook with a tensor-dependent `if` on a runtime sublayer (Linear) is converted
as the hooks of user layers are, and a converted layer with its own hooks that already ran saves
without an input_spec (its forward's last inputs), the loaded model applying the hooks too."""
import os

import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _double_input(layer, inputs):
    return (inputs[0] * 2,)


def _post_if(layer, inputs, out):
    if out.mean() > 0:
        return out * 3
    return out - 1


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)
        self.fc.register_forward_post_hook(_post_if)
        self.register_forward_pre_hook(_double_input)

    def forward(self, x):
        return self.fc(x)


def test_hooks_convert_and_save_without_input_spec(tmp_path):
    rt.seed(0)
    net = _Net()
    check(net, (np.ones([2, 4], "float32"),), (np.full([2, 4], -5.0, "float32"),))
    sf = dy2st.to_static(net)
    x = rt.to_tensor(np.linspace(-3, 3, 8, dtype="float32").reshape(2, 4))
    out = sf(x).numpy()
    path = os.path.join(tmp_path, "hooked")
    dy2st.save(sf, path)
    np.testing.assert_array_equal(dy2st.load(path)(x).numpy(), out)
