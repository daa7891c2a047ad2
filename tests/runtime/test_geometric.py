"""rt.geometric (Paddle's paddle.geometric): message passing and segment reductions, values and
gradients as PaddlePaddle 3.3 gives them (a tied max hands its gradient whole to every tied message),
eagerly and converted with None node and edge counts."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec

X = np.array([[1.0, 2], [3, 1], [3, 5], [0, 0], [2, 2]], "float32")
SRC, DST, SEG = np.array([0, 1, 2, 3, 4, 0]), np.array([1, 2, 1, 0, 0, 4]), np.array([0, 0, 2, 2, 3])
G = rt.geometric
CASES = {  # name: (function, output, gradient of x for the weights arange(numel)), PaddlePaddle 3.3
    "u_sum": (lambda x, s, d, g: G.send_u_recv(x, s, d, "sum"), [[2, 2], [4, 7], [3, 1], [0, 0], [1, 2]],
              [[10, 12], [4, 5], [2, 3], [0, 1], [0, 1]]),
    "u_mean": (lambda x, s, d, g: G.send_u_recv(x, s, d, "mean"), [[1, 1], [2, 3.5], [3, 1], [0, 0], [1, 2]],
               [[9, 10.5], [4, 5], [1, 1.5], [0, 0.5], [0, 0.5]]),
    "u_max": (lambda x, s, d, g: G.send_u_recv(x, s, d, "max"), [[2, 2], [3, 5], [3, 1], [0, 0], [1, 2]],
              [[8, 9], [4, 5], [2, 3], [0, 0], [0, 1]]),
    "u_min": (lambda x, s, d, g: G.send_u_recv(x, s, d, "min", out_size=6),
              [[0, 0], [1, 2], [3, 1], [0, 0], [1, 2], [0, 0]], [[10, 12], [4, 5], [0, 0], [0, 1], [0, 0]]),
    "seg_sum": (lambda x, s, d, g: G.segment_sum(x, g), [[4, 3], [0, 0], [3, 5], [2, 2]],
                [[0, 1], [0, 1], [4, 5], [4, 5], [6, 7]]),
    "seg_mean": (lambda x, s, d, g: G.segment_mean(x, g), [[2, 1.5], [0, 0], [1.5, 2.5], [2, 2]],
                 [[0, 0.5], [0, 0.5], [2, 2.5], [2, 2.5], [6, 7]]),
    "seg_max": (lambda x, s, d, g: G.segment_max(x, g), [[3, 2], [0, 0], [3, 5], [2, 2]],
                [[0, 1], [0, 0], [4, 5], [0, 0], [6, 7]]),
}


def _run(f, x, *idx):
    x = rt.to_tensor(x, stop_gradient=False)
    out = f(x, *[rt.to_tensor(i) for i in idx])
    (out * rt.arange(out.numel(), dtype="float32").reshape(out.shape)).sum().backward()
    return out.numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_paddles_eagerly_and_converted(name):
    f, want, grad = CASES[name]
    out, g = _run(f, X, SRC, DST, SEG)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(g, grad)
    conv = dy2st.to_static(f, input_spec=[InputSpec([None, 2]), InputSpec([None], "int64"),
                                          InputSpec([None], "int64"), InputSpec([None], "int64")])
    for n in (5, 3):
        idx = [SRC[SRC < n][:4], DST[SRC < n][:4] % n, SEG[:n]]
        for a, b in zip(_run(f, X[:n], *idx), _run(conv, X[:n], *idx)):
            np.testing.assert_array_equal(b, a)


def test_a_tied_max_gives_every_tied_message_the_whole_gradient_and_edge_messages():
    x = np.array([[1.0, 2], [1, 3], [0, 3]], "float32")
    out, g = _run(lambda x, s, d: G.send_u_recv(x, s, d, "max"), x, np.array([0, 1, 2]), np.array([1, 1, 1]))
    assert out.tolist() == [[0, 0], [1, 3], [0, 0]] and g.tolist() == [[2, 0], [2, 3], [0, 3]]  # Paddle 3.3
    y = rt.to_tensor(np.full((6, 2), 2.0, "float32"))
    ue = G.send_ue_recv(rt.to_tensor(X), y, rt.to_tensor(SRC), rt.to_tensor(DST), message_op="mul", reduce_op="sum")
    np.testing.assert_array_equal(ue.numpy(), 2 * G.send_u_recv(rt.to_tensor(X), rt.to_tensor(SRC), rt.to_tensor(DST)).numpy())
    uv = G.send_uv(rt.to_tensor(X), rt.to_tensor(X), rt.to_tensor(SRC), rt.to_tensor(DST), message_op="sub")
    np.testing.assert_array_equal(uv.numpy(), X[SRC] - X[DST])
