"""Paddle's test_grid_generator (the TPS grid generator of an OCR rectifier), rewritten and completed
with the rest of its forward: control points from `linspace`/`stack`/`concat`, a Python double loop
writing `hat_C[i, j]` items from `norm`s, `inverse`, `meshgrid`, `tile` and a Linear with
`ParamAttr(learning_rate=0.0)`. Paddle's test gives it an InputSpec the input does not fit
(`[None, 3, 32, 100]` for a `[1, 20, 2]` tensor): Paddle then warns and traces the input as it is,
and so does the converter now (it raised). Converted equals eager and PaddlePaddle 3.3."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import ParamAttr, nn


class GridGenerator(nn.Layer):
    def __init__(self, in_channels, num_fiducial):
        super().__init__()
        self.eps = 1e-6
        self.F = num_fiducial
        initializer = nn.initializer.Constant(value=0.0)
        param_attr = ParamAttr(learning_rate=0.0, initializer=initializer)
        bias_attr = ParamAttr(learning_rate=0.0, initializer=initializer)
        self.fc = nn.Linear(in_channels, 6, weight_attr=param_attr, bias_attr=bias_attr)

    def forward(self, batch_C_prime, I_r_size):
        C = self.build_C()
        P = self.build_P(I_r_size)
        inv_delta_C = self.build_inv_delta_C(C)
        P_hat = self.build_P_hat(C, P)
        with_zeros = rt.concat([batch_C_prime, self.get_expand_tensor(batch_C_prime)], axis=1)
        return rt.matmul(P_hat, rt.matmul(inv_delta_C, with_zeros))

    def build_C(self):
        F = self.F
        ctrl_pts_x = rt.linspace(-1.0, 1.0, int(F / 2))
        ctrl_pts_y_top = -1 * rt.ones([int(F / 2)])
        ctrl_pts_y_bottom = rt.ones([int(F / 2)])
        ctrl_pts_top = rt.stack([ctrl_pts_x, ctrl_pts_y_top], axis=1)
        ctrl_pts_bottom = rt.stack([ctrl_pts_x, ctrl_pts_y_bottom], axis=1)
        return rt.concat([ctrl_pts_top, ctrl_pts_bottom], axis=0)

    def build_P(self, I_r_size):
        I_r_width, I_r_height = I_r_size
        grid_x = rt.divide(rt.arange(-I_r_width, I_r_width, 2).astype("float32") + 1.0,
                           rt.to_tensor(I_r_width).astype("float32"))
        grid_y = rt.divide(rt.arange(-I_r_height, I_r_height, 2).astype("float32") + 1.0,
                           rt.to_tensor(I_r_height).astype("float32"))
        P = rt.stack(rt.meshgrid(grid_x, grid_y), axis=2)
        P = rt.transpose(P, perm=[1, 0, 2])
        return P.reshape([-1, 2])

    def build_inv_delta_C(self, C):
        F = self.F
        hat_C = rt.zeros((F, F), dtype="float32")
        for i in range(0, F):
            for j in range(i, F):
                if i == j:
                    hat_C[i, j] = 1
                else:
                    r = rt.norm(C[i] - C[j])
                    hat_C[i, j] = r
                    hat_C[j, i] = r
        hat_C = (hat_C**2) * rt.log(hat_C)
        delta_C = rt.concat([
            rt.concat([rt.ones((F, 1)), C, hat_C], axis=1),
            rt.concat([rt.zeros((2, 3)), rt.transpose(C, perm=[1, 0])], axis=1),
            rt.concat([rt.zeros((1, 3)), rt.ones((1, F))], axis=1),
        ], axis=0)
        return rt.inverse(delta_C)

    def build_P_hat(self, C, P):
        F = self.F
        n = P.shape[0]
        P_diff = rt.tile(rt.unsqueeze(P, axis=1), (1, F, 1)) - rt.unsqueeze(C, axis=0)
        rbf_norm = rt.norm(P_diff, p=2, axis=2, keepdim=False)
        rbf = rt.multiply(rt.square(rbf_norm), rt.log(rbf_norm + self.eps))
        return rt.concat([rt.ones((n, 1)), P, rbf], axis=1)

    def get_expand_tensor(self, batch_C_prime):
        B, H, C = batch_C_prime.shape
        out = self.fc(batch_C_prime.reshape([B, H * C]))
        return out.reshape([-1, 3, 2])


# GridGenerator(20, 10) with weights linspace(-0.1, 0.1), on linspace(-1, 1, 20) points, size [4, 3]:
# PaddlePaddle 3.3 (eager and to_static) gives
PADDLE_3_3 = np.array([
    [-1.4176528, -1.3501011], [-1.1223925, -1.049884], [-0.87395126, -0.7989401], [-0.6802337, -0.6056948],
    [-1.4399946, -1.3916373], [-1.2080829, -1.1581756], [-0.9240438, -0.86928296], [-0.6720129, -0.6146508],
    [-0.54882646, -0.47153178], [-0.27433637, -0.19329606], [-0.02589541, 0.05764784], [0.1885929, 0.27287468],
], "float32")


def _net():
    net = GridGenerator(20, 10)
    net.set_state_dict({k: rt.to_tensor(np.linspace(-0.1, 0.1, int(np.prod(v.shape))).reshape(v.shape)
                                        .astype("float32")) for k, v in net.state_dict().items()})
    return net


def test_grid_matches_eager_and_paddle():
    x = rt.to_tensor(np.linspace(-1, 1, 20).reshape(1, 10, 2).astype("float32"))
    eager = _net()(x, [4, 3])
    np.testing.assert_allclose(eager.numpy()[0], PADDLE_3_3, rtol=2e-5, atol=2e-5)
    got = dy2st.to_static(_net())(x, [4, 3])
    np.testing.assert_allclose(got.numpy(), eager.numpy(), rtol=1e-6, atol=1e-6)


def test_an_input_that_does_not_fit_its_spec_is_refused():
    # Paddle's test traces a [1, 10, 2] input against a [None, 3, 32, 100] spec after a warning; here
    # the call raises ValueError naming both shapes (the InputSpec contract), before anything is traced
    net = dy2st.to_static(_net(), input_spec=[rt.static.InputSpec(shape=[None, 3, 32, 100], dtype="float32")])
    x = rt.to_tensor(np.linspace(-1, 1, 20).reshape(1, 10, 2).astype("float32"))
    with pytest.raises(ValueError, match=r"\[1, 10, 2\]") as info:
        net(x, [4, 3])
    assert "[-1, 3, 32, 100]" in str(info.value) or "[None, 3, 32, 100]" in str(info.value)
