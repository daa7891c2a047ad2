"""``nn.Bilinear`` / ``F.bilinear``: values and gradients against PaddlePaddle 3.3, converted against
eager (bitwise), finite differences, a saved and loaded model, and Paddle's errors."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from layer_checks import check_converted, check_converted_layer, check_fd, check_paddle, inp

# PaddlePaddle 3.3 (CPU): F.bilinear on the inputs of _arrays(), the output and the gradients of
# sum(out * wgt(out.shape)) on x1, x2, weight and bias (/tmp/layers/gen_refs.py).
BIL = [1.66709, -0.60425, -0.541786, 0.236138, -1.60094, 1.47988]  # shape [3, 2]
BIL_D0 = [0.122361, -0.170565, -0.383272, -0.41572, -0.300926, 0.631184, 1.26644, 1.30607, 0.0925941, 1.14376, 1.657, 1.39093]  # shape [3, 4]
BIL_D1 = [0.511299, 0.174431, -0.282965, -0.957603, -1.42717, -2.09345]  # shape [3, 2]
BIL_D2 = [0.150844, 0.776299, 0.205735, 0.808828, 0.163866, 0.460953, 0.0449281, -0.103716, 0.647692, 0.647952, 0.57714, 0.322172, 0.23515, -0.155129, -0.217434, -0.559471]  # shape [2, 4, 2]
BIL_D3 = [-0.0296793, 0.679232]  # shape [1, 2]


def _arrays():
    return [inp(3, 4), inp(3, 2, f=np.sin, k=0.9), inp(2, 4, 2, f=np.sin, k=0.35), inp(1, 2, k=2.0)]


def test_matches_paddle_converted_and_finite_differences():
    check_paddle(F.bilinear, _arrays(), BIL, [BIL_D0, BIL_D1, BIL_D2, BIL_D3])
    check_converted(F.bilinear, _arrays())
    check_converted(lambda a, b, w: F.bilinear(a, b, w), _arrays()[:3])
    check_fd(F.bilinear, _arrays())


class _Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.bil = rt.nn.Bilinear(4, 3, 5)
        self.lin = rt.nn.Linear(5, 2)

    def forward(self, a, b):
        return self.lin(rt.nn.functional.relu(self.bil(a, b)))


def test_layer_parameters_training_and_saved_model(tmp_path):
    rt.seed(1)
    net = _Net()
    assert [(n, p.shape) for n, p in net.bil.named_parameters()] == [("weight", [5, 4, 3]), ("bias", [1, 5])]
    np.testing.assert_array_equal(net.bil.bias.numpy(), np.zeros([1, 5], "float32"))
    limit = np.sqrt(6 / (4 * 3 + 5 * 3))  # Xavier-uniform with Paddle's fans of a [5, 4, 3] weight
    assert 0.5 * limit < np.abs(net.bil.weight.numpy()).max() <= limit
    a, b = rt.to_tensor(inp(6, 4)), rt.to_tensor(inp(6, 3, k=0.2))
    st = dy2st.to_static(net, input_spec=[dy2st.InputSpec([None, 4]), dy2st.InputSpec([None, 3])])
    check_converted_layer(st, [a, b])
    dy2st.save(st, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded(a[:2], b[:2]).numpy(), net(a[:2], b[:2]).numpy())


def test_errors_are_paddles():
    a, b, w = (rt.to_tensor(v) for v in _arrays()[:3])
    with pytest.raises(ValueError, match="batch"):
        F.bilinear(a, b[:2], w)
    with pytest.raises(ValueError, match="weight"):
        F.bilinear(b, a, w)
    with pytest.raises(ValueError, match="2-D"):
        F.bilinear(a.unsqueeze(0), b, w)
    with pytest.raises(ValueError, match=r"bias must be \[1, 2\]"):
        F.bilinear(a, b, w, rt.zeros([2]))
    with pytest.raises(TypeError, match="float32 or float64"):
        F.bilinear(a.astype("int32"), b.astype("int32"), w.astype("int32"))
