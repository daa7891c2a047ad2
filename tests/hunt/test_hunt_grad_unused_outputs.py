"""rt.grad(..., allow_unused=True) of an output that needs no gradient gives None for every input,
as Paddle's does (test_gradname_parse.py: the gradient of `matmul(x, y)` w.r.t. x, independent of
x, differentiated again); it raised. Without allow_unused it still raises."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _first_grad(x, y):
    return rt.grad(rt.matmul(x, y), [x], create_graph=True, allow_unused=True)


def test_grad_of_outputs_needing_no_gradient():
    x = rt.to_tensor(np.ones([2, 2]), stop_gradient=False)
    y = rt.to_tensor(np.arange(4.0).reshape(2, 2))
    for fn in (_first_grad, dy2st.to_static(_first_grad)):
        g = fn(x, y)
        np.testing.assert_allclose(g[0].numpy(), np.ones([2, 2]) @ y.numpy().T)
        assert rt.grad(g, [x], allow_unused=True) == [None]
    z = x * 2
    gz, = rt.grad([z, z.detach() * 3], x, allow_unused=True)  # the detached one adds nothing
    np.testing.assert_allclose(gz.numpy(), np.full([2, 2], 2.0))
    with pytest.raises(RuntimeError, match="does not need a gradient"):
        rt.grad(z.detach(), x)
