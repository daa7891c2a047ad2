"""Run-time dims in shapes under ``@to_static`` with ``InputSpec([None, ...])``: each idiom
(``rt.reshape(x, [x.shape[0], -1])``, ``rt.zeros([b, H])``, ``rt.full/ones/randn/expand/tile``,
slice bounds from ``x.shape[i]``, ``shape=`` as a Tensor, ``b, n = rt.shape(x)`` / ``x.shape``)
matches eager at two batch sizes through one cached Program, with eager gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec
from error_helpers import notes

_rng = np.random.default_rng(3)
SPEC = [InputSpec([None, 3, 4], "float32", "x")]


def reshape_flatten(x):
    return rt.reshape(x, [x.shape[0], -1]) * 2


def reshape_method_rt_shape(x):
    b, n, m = rt.shape(x)
    return x.reshape([b, n * m])


def zeros_state(x):
    h = rt.zeros([x.shape[0], 5])
    return h + rt.reshape(x, [x.shape[0], -1])[:, :5]


def creation_by_batch(x):
    b, n, m = x.shape
    return (rt.ones([b, n]) + rt.full([b, n], 2.5) + rt.expand(rt.ones([1, n]), [b, n])
            + rt.tile(rt.ones([1, 1]), [b, n]) + x.sum(axis=2) + rt.empty([b, n]) * 0)


def slices_by_dims(x):
    b = x.shape[0]
    return x[: b - 1, :, : x.shape[2] // 2] + x[1:b, :, 2:]


def shape_as_tensor(x):
    return rt.reshape(x * 3, shape=rt.shape(x)) + rt.zeros(rt.shape(x))


def len_and_arange(x):
    n = len(x)
    return rt.reshape(x, [n, 12]) + rt.arange(x.shape[0]).astype("float32").unsqueeze(-1)


def full_with_tensor_value(x):
    return rt.full([x.shape[0], 2], x.mean())


IDIOMS = [reshape_flatten, reshape_method_rt_shape, zeros_state, creation_by_batch, slices_by_dims,
          shape_as_tensor, len_and_arange, full_with_tensor_value]


@pytest.mark.parametrize("fn", IDIOMS, ids=lambda f: f.__name__)
def test_idiom_matches_eager_at_two_batch_sizes_in_one_program(fn):
    sf = dy2st.to_static(fn, input_spec=SPEC)
    for b in (2, 5):
        x = rt.to_tensor(_rng.standard_normal((b, 3, 4)).astype(np.float32))
        got, want = sf(x), fn(x)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1


def test_random_tensors_take_the_batch_size():
    def noisy(x):
        b = x.shape[0]
        return rt.randn([b, 2]), rt.rand([b, 3]), rt.randint(0, 5, [b])

    sf = dy2st.to_static(noisy, input_spec=SPEC)
    for b in (2, 6):
        shapes = [o.shape for o in sf(rt.ones([b, 3, 4]))]
        assert shapes == [[b, 2], [b, 3], [b]]
    assert len(sf.program_cache) == 1


class Head(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(12, 6)
        self.h0 = rt.nn.Linear(1, 3)

    def forward(self, x):
        b = x.shape[0]
        y = self.fc(rt.reshape(x, [b, -1]))
        y = rt.reshape(y, [b, 2, 3]) + rt.expand(self.h0.weight, [b, 2, 3])
        y = y[: b - 1] * rt.tile(self.h0.bias, [b - 1, 2, 1])
        return (y ** 2).mean()


def test_gradients_match_eager_at_two_batch_sizes():
    rt.seed(5)
    eager = Head()
    static = Head()
    static.set_state_dict(eager.state_dict())
    sf = dy2st.to_static(static, input_spec=SPEC)
    for b in (3, 5):
        xv = _rng.standard_normal((b, 3, 4)).astype(np.float32)
        xe, xs = rt.to_tensor(xv, stop_gradient=False), rt.to_tensor(xv, stop_gradient=False)
        le, ls = eager(xe), sf(xs)
        np.testing.assert_allclose(ls.numpy(), le.numpy(), rtol=1e-5)
        le.backward()
        ls.backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-5, atol=1e-7)
        for (name, pe), ps in zip(eager.named_parameters(), static.parameters()):
            np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-7, err_msg=name)
            pe.clear_grad()
            ps.clear_grad()
    assert len(sf.forward.program_cache) == 1


def test_concrete_shapes_still_bake_ints():
    sf = dy2st.to_static(zeros_state)
    prog = sf.get_concrete_program(rt.ones([2, 3, 4])).main_program
    ops = prog.global_block().ops
    assert not any(op.inputs.get("ShapeTensor") for op in ops)
    assert "shape=[2, 5]" in str(prog)


def test_a_float_dim_is_an_error_at_the_users_line():
    def bad(x):
        h = rt.zeros([x.shape[0] * 1.5, 3])
        return h

    sf = dy2st.to_static(bad, input_spec=SPEC)
    with pytest.raises(TypeError) as e:
        sf(rt.ones([2, 3, 4]))
    msg, note = str(e.value), notes(e.value)
    assert "zeros: shape[0] must be an int or a 1-element int Tensor, got a float32 Tensor" in msg
    assert "test_runtime_dims.py" in note and "h = rt.zeros([x.shape[0] * 1.5, 3])" in note


def test_a_same_padded_strided_conv_over_run_time_sizes_pads_as_eager():
    # PaddleSeg's ConvBNReLU (padding="same") with stride 2 refused an unknown height/width while
    # the Program was built; the conv op resolves SAME's pads when it sees the input
    rt.seed(0)
    eager, conv = rt.nn.Conv2D(2, 3, 3, stride=2, padding="same"), rt.nn.Conv2D(2, 3, 3, stride=2, padding="same")
    conv.set_state_dict(eager.state_dict())
    f = dy2st.to_static(conv, input_spec=[InputSpec([None, 2, None, None])])
    for h, w in ((7, 10), (8, 5), (1, 2)):
        data = _rng.standard_normal((2, 2, h, w)).astype("float32")
        outs = []
        for model in (eager, f):
            x = rt.to_tensor(data, stop_gradient=False)
            y = model(x)
            (y * y).sum().backward()
            outs.append((y.numpy(), x.grad.numpy(), model.weight.grad.numpy()))
            model.clear_gradients()
        assert outs[0][0].shape == (2, 3, -(-h // 2), -(-w // 2))
        for a, b in zip(*outs):
            np.testing.assert_array_equal(b, a)
    assert len(f.forward.program_cache) == 1
