"""Paddle's test_to_tensor (case2): ``to_tensor([...], dtype="int64", stop_gradient=False)`` returned by
a converted function keeps stop_gradient=False, as eagerly; so does an int value the function sets
``.stop_gradient = False`` on, while an int op's result stays True in both. Every call (the first
and the cached ones) returns eager's flags, next to a float output whose values and gradients match."""
import numpy as np

import dy2st
import runtime as paddle

from .helpers import same


def _ids_and_scaled(x, n):
    ids = paddle.to_tensor([1.0, 2.0, 3.0], dtype="int64", stop_gradient=False)
    made = paddle.arange(n, dtype="int32")
    made.stop_gradient = False
    mask = paddle.to_tensor([True, False], stop_gradient=False)
    return ids, ids + n, made, mask, x * 3.0


def test_int_outputs_keep_eager_stop_gradient_on_every_call():
    conv = dy2st.to_static(_ids_and_scaled)
    for v in ([1.0, -2.0], [0.5, 4.0], [3.0, 3.0]):
        xe = paddle.to_tensor(v, stop_gradient=False)
        xs = paddle.to_tensor(v, stop_gradient=False)
        n = paddle.to_tensor(2)
        eager, static = _ids_and_scaled(xe, n), conv(xs, n)
        same(eager, static)
        assert [t.stop_gradient for t in static] == [t.stop_gradient for t in eager] == [False, True, False, False, False]
        eager[-1].sum().backward()
        static[-1].sum().backward()
        np.testing.assert_array_equal(xe.grad.numpy(), xs.grad.numpy())
    with paddle.no_grad():  # made under no_grad, a leaf's flag is still its own
        assert [t.stop_gradient for t in conv(xs, n)] == [t.stop_gradient for t in _ids_and_scaled(xe, n)]
