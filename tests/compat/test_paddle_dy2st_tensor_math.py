"""``paddle.tensor.math`` and its axis-aligned elementwise helpers, as Paddle's seq2seq model masks
LSTM states with them (``_multiply_with_axis(state, step_mask, axis=0)``): converted code matches
eager in values and gradients, over a batch dim the Program does not fix."""
import numpy as np

import dy2st
import runtime as paddle
from runtime.static import InputSpec

from .helpers import same


def _masked_update(state, new_state, mask):
    m = paddle.tensor.math
    kept = m._multiply_with_axis(new_state, mask, axis=0) - m._multiply_with_axis(state, mask - 1, axis=0)
    shifted = m._add_with_axis(kept, mask, axis=0)
    return m._divide_with_axis(m._subtract_with_axis(shifted, mask, axis=0), mask + 2, axis=0) + m.add(kept, 1.0)


def test_axis_helpers_match_numpy_broadcasting():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    y = np.array([1.0, 2.0, 3.0], "float32")
    got = paddle.tensor.math._multiply_with_axis(paddle.to_tensor(x), paddle.to_tensor(y), axis=1)
    np.testing.assert_array_equal(got.numpy(), x * y[None, :, None])
    got = paddle.tensor.math._add_with_axis(paddle.to_tensor(x), paddle.to_tensor(x[0, 0]), axis=-1)
    np.testing.assert_array_equal(got.numpy(), x + x[0, 0])


def test_masked_state_update_converted_with_gradients():
    conv = dy2st.to_static(_masked_update, input_spec=[InputSpec([None, 5]), InputSpec([None, 5]), InputSpec([None])])
    rng = np.random.default_rng(1)
    for batch in (2, 3, 6):
        arrays = [rng.standard_normal((batch, 5)).astype("float32") for _ in range(2)]
        arrays.append((rng.random(batch) > 0.5).astype("float32"))
        results = []
        for fn in (_masked_update, conv):
            ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
            out = fn(*ts)
            (out * out).sum().backward()
            results.append((out, [t.grad for t in ts]))
        same(results[0][0], results[1][0])
        same(results[0][1], results[1][1])
