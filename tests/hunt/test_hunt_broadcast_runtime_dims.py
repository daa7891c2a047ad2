"""Broadcasting over dims unknown while the Program is built (InputSpec None), where the run-time
size of the first input is the 1 the others broadcast: rt.broadcast_tensors took that input's size
(outputs [1, 3] where eager gives [4, 3], no error), and einsum's gradient of a broadcast `...` dim
failed ("gradient shape [4, 2, 3] does not match [1, 2, 3]"), as did the gradient of any broadcast
of a run-time 1 in the last dim ([-1] vectors). Values and gradients now match eager."""
import numpy as np

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _broadcast(a, b):
    x, y = rt.broadcast_tensors([a, b])
    return x * 2 + y


def _einsum(a, b):
    return rt.einsum("...ij,...jk->...ik", a, b)


def _compare(fn, spec, shapes):
    sf = dy2st.to_static(fn, input_spec=spec)
    for sa, sb in shapes:
        got = []
        for call in (fn, sf):
            a = rt.to_tensor(np.random.RandomState(0).rand(*sa).astype("float32"), stop_gradient=False)
            b = rt.to_tensor(np.random.RandomState(1).rand(*sb).astype("float32"), stop_gradient=False)
            out = call(a, b)
            (out * out).sum().backward()
            got.append((out.numpy(), a.grad.numpy(), b.grad.numpy()))
        for e, s in zip(*got):
            assert s.shape == e.shape
            np.testing.assert_allclose(s, e, rtol=1e-5)


def test_broadcast_tensors_takes_the_largest_run_time_dim():
    _compare(_broadcast, [InputSpec([None, 3], "float32")] * 2, [((1, 3), (4, 3)), ((4, 3), (1, 3)), ((2, 3), (2, 3))])


def test_einsum_gradient_sums_a_run_time_broadcast_dim():
    spec = [InputSpec([None, 2, 3], "float32"), InputSpec([None, 3, 2], "float32")]
    _compare(_einsum, spec, [((1, 2, 3), (4, 3, 2)), ((4, 2, 3), (1, 3, 2)), ((3, 2, 3), (3, 3, 2))])


def _weighted(a, b):
    return rt.maximum(a, b) * (a + 1) / (b + 2)


def test_gradients_of_a_run_time_broadcast_in_the_last_dim_are_summed_back():
    # reduce_as skipped shapes equal but for an unknown last dim ([-1] and [-1]): a [1] input got a
    # [4] gradient ("internal error: gradient shape [4] does not match tensor shape [1]")
    spec = [InputSpec([None], "float32")] * 2
    _compare(_weighted, spec, [((1,), (4,)), ((4,), (1,)), ((3,), (3,))])
    _compare(_weighted, [InputSpec([2, None], "float32")] * 2, [((2, 1), (2, 5)), ((2, 3), (2, 3))])
