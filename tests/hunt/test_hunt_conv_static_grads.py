"""A converted conv2d whose input comes from another op passes its gradient on: the rule read the
stop_gradient flag, which a Program's intermediate Variables leave at its default (True), so a stacked
conv's earlier layers and inputs got no gradient when they were function arguments."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F


def _stacked(x, w1, w2):
    return F.conv2d(F.relu(F.conv2d(x, w1, padding=1)), w2).sum() + F.conv2d(rt.concat([x, x], axis=1)[:, :2], w1).sum()


def test_stacked_conv_gradients_reach_arguments_eager_and_converted():
    sums = []
    for fn in (_stacked, dy2st.to_static(_stacked)):
        x = rt.to_tensor(np.ones((1, 2, 4, 4), "float32"), stop_gradient=False)
        w1 = rt.to_tensor(np.ones((2, 2, 3, 3), "float32"), stop_gradient=False)
        w2 = rt.to_tensor(np.ones((3, 2, 3, 3), "float32"), stop_gradient=False)
        fn(x, w1, w2).backward()
        sums.append([float(t.grad.numpy().sum()) for t in (x, w1, w2)])
    assert sums[0] == sums[1] == [3072.0 + 144.0, 3072.0 + 144.0, 3072.0]
