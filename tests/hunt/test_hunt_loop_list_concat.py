"""``rt.concat(lst, axis=k)`` of a list appended to in a tensor loop (Paddle's DynamicGRU: per-step
``[batch, 1, hidden]`` outputs joined on axis 1, reversed with ``[::-1]``) joins the items on ``k``
as eagerly, under run-time dims, with gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt

SPEC = [dy2st.InputSpec([None, None, 3], "float32", "x")]


def _model(axis, reverse):
    def f(x):
        res = []
        for i in range(x.shape[1]):  # a run-time dim: a while loop, `res` one stacked tensor
            h = rt.tanh(x[:, i, :] * (i + 1.0))
            res.append(rt.reshape(h, [-1, 1, 3]) if axis in (1, -2) else h)
        if reverse:
            res = res[::-1]
        return rt.concat(res, axis=axis)
    return f


@pytest.mark.parametrize("axis,reverse", [(0, False), (1, False), (1, True), (-1, False), (-2, True)])
def test_concat_of_loop_list_matches_eager(axis, reverse):
    f = _model(axis, reverse)
    sf = dy2st.to_static(f, input_spec=SPEC)
    rng = np.random.default_rng(0)
    for shape in [(2, 3, 3), (4, 1, 3), (1, 5, 3)]:
        a = rng.standard_normal(shape).astype("float32")
        x, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
        want, got = f(x), sf(xs)
        assert want.shape == got.shape and want.numpy().tobytes() == got.numpy().tobytes()
        w = rt.to_tensor(rng.standard_normal(want.shape).astype("float32"))
        (want * w).sum().backward()
        (got * w).sum().backward()
        assert x.grad.numpy().tobytes() == xs.grad.numpy().tobytes()
    assert len(sf.program_cache) == 1


def test_concat_of_loop_list_bad_axis_is_a_clear_error():
    sf = dy2st.to_static(_model(2, False), input_spec=SPEC)
    with pytest.raises(ValueError, match="axis must be a Python int in"):
        sf(rt.ones([2, 3, 3]))


def test_stack_and_concat_take_paddles_x_keyword():
    def f(m, n):  # BERT's paddle.stack(x=[mask] * n_head, axis=1); SimNet's paddle.concat(x=inputs, axis=1)
        heads = rt.stack(x=[m * 2.0] * 3, axis=1)
        res = []
        for i in range(n):
            res.append(m * (i + 1.0))
        return heads, rt.concat(x=[m, m + 1.0], axis=1), rt.stack(x=res, axis=0), rt.concat(x=res, axis=-1)

    sf = dy2st.to_static(f)
    m = rt.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    for n in (1, 3):
        for a, b in zip(f(m, rt.to_tensor(n)), sf(m, rt.to_tensor(n))):
            assert a.shape == b.shape and a.numpy().tobytes() == b.numpy().tobytes()
