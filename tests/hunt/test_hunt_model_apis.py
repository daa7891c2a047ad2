"""Paddle 2.x names that the dy2st model tests (ResNet, SE-ResNeXt, PTB LM, MNIST) call:
``nn.BatchNorm(act=...)``, ``paddle.static.accuracy``, ``F.softmax_with_cross_entropy`` and
``F.square_error_cost``, eagerly and converted, with gradients."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F


class _Net(rt.nn.Layer):
    def __init__(self, act):
        super().__init__()
        self.conv = rt.nn.Conv2D(2, 5, 3, padding=1)
        self.bn = rt.nn.BatchNorm(5, act=act)

    def forward(self, x, label):
        y = self.bn(self.conv(x))
        logits = rt.mean(y, axis=[2, 3])
        loss = F.softmax_with_cross_entropy(logits=logits, label=label)
        acc = rt.static.accuracy(input=F.softmax(logits), label=label, k=2)
        return rt.mean(loss) + rt.mean(F.square_error_cost(logits, rt.zeros_like(logits))), acc, loss


def _run(convert, act, batches):
    rt.seed(0)
    net = _Net(act)
    if convert:
        net = dy2st.to_static(net)
    out = []
    for x, y in batches:
        loss, acc, each = net(rt.to_tensor(x), rt.to_tensor(y))
        loss.backward()
        out += [loss.numpy(), acc.numpy(), each.numpy()] + [p.grad.numpy() for p in net.parameters() if not p.stop_gradient]
        out += [net.bn._mean.numpy().copy()]
        net.clear_gradients()
    return out


@pytest.mark.parametrize("act", [None, "relu", "sigmoid", "tanh"])
def test_batchnorm_act_and_losses_converted_match_eager(act):
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((n, 2, 4, 4)).astype("float32"), rng.integers(0, 5, (n, 1)))
               for n in (3, 3, 4)]
    want, got = _run(False, act, batches), _run(True, act, batches)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(want, got))


def test_batchnorm_act_applies_the_activation():
    x = rt.to_tensor(np.random.default_rng(1).standard_normal((4, 3, 2, 2)).astype("float32"))
    plain, relu = rt.nn.BatchNorm(3), rt.nn.BatchNorm(3, act="relu")
    np.testing.assert_array_equal(relu(x).numpy(), np.maximum(plain(x).numpy(), 0))
    with pytest.raises(ValueError, match="unknown activation"):
        rt.nn.BatchNorm(3, act="no_such_act")


def test_softmax_with_cross_entropy_keeps_the_class_dim():
    x = np.random.default_rng(2).standard_normal((2, 3, 5)).astype("float32")
    y = np.array([[[1], [4], [0]], [[2], [2], [3]]], "int64")
    loss, sm = F.softmax_with_cross_entropy(rt.to_tensor(x), rt.to_tensor(y), return_softmax=True)
    logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    np.testing.assert_allclose(loss.numpy(), -np.take_along_axis(logp, y, -1), rtol=1e-6)
    np.testing.assert_allclose(sm.numpy(), np.exp(logp), rtol=1e-6)
    assert loss.shape == [2, 3, 1]


def _beam_steps(scores, n):
    """The seq2seq test's beam step: top-k over beams, gather_nd of the picked rows, the ids and
    parents of every step collected in a tensor loop, gather_tree at the end."""
    batch_pos = rt.expand(rt.unsqueeze(rt.arange(0, scores.shape[0], 1, dtype="int64"), [1]), [-1, 2])
    state = rt.zeros([scores.shape[0], 2])
    ids, parents = [], []
    for _ in range(n):
        flat = rt.reshape(scores + rt.unsqueeze(state, -1), [-1, 2 * scores.shape[2]])
        top, idx = rt.topk(flat, k=2)
        beam = rt.floor_divide(idx, rt.full([1], scores.shape[2], "int64"))
        state = rt.gather_nd(flat, rt.stack([batch_pos, idx], axis=2)) * 0.5
        ids.append(rt.remainder(idx, rt.full([1], scores.shape[2], "int64")))
        parents.append(beam)
    return F.gather_tree(rt.stack(ids), rt.stack(parents)), state.sum()


def test_beam_search_steps_converted_match_eager():
    sf = dy2st.to_static(_beam_steps)
    rng = np.random.default_rng(3)
    for n in (1, 3, 4):
        a = rng.standard_normal((3, 2, 5)).astype("float32")
        x, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
        (want_ids, want_s), (got_ids, got_s) = _beam_steps(x, rt.to_tensor(n)), sf(xs, rt.to_tensor(n))
        np.testing.assert_array_equal(want_ids.numpy(), got_ids.numpy())
        assert want_s.numpy().tobytes() == got_s.numpy().tobytes()
        want_s.backward()
        got_s.backward()
        assert x.grad.numpy().tobytes() == xs.grad.numpy().tobytes()


def test_gather_nd_and_gather_tree_values():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    idx = np.array([[[1, 2], [0, 0]], [[1, 1], [0, 2]]], "int64")
    np.testing.assert_array_equal(rt.gather_nd(rt.to_tensor(x), rt.to_tensor(idx)).numpy(), x[idx[..., 0], idx[..., 1]])
    ids = np.array([[[2, 3]], [[4, 5]], [[6, 7]]], "int64")  # [time, batch, beam]
    par = np.array([[[0, 0]], [[1, 0]], [[1, 1]]], "int64")
    np.testing.assert_array_equal(F.gather_tree(rt.to_tensor(ids), rt.to_tensor(par)).numpy().ravel(),
                                  [2, 2, 5, 5, 6, 7])  # what Paddle 3.3 gives


@pytest.mark.parametrize("name", ["relu6", "hardswish", "hardsigmoid"])
def test_hard_activations_converted_match_eager(name):
    fn = getattr(F, name)
    sf = dy2st.to_static(lambda x: fn(x * 2.0))
    a = np.concatenate([np.linspace(-8, 8, 33), [0.0, 3.0, -3.0, 6.0]]).astype("float32")
    x, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
    want, got = fn(x * 2.0), sf(xs)
    assert want.numpy().tobytes() == got.numpy().tobytes()
    want.sum().backward()
    got.sum().backward()
    assert x.grad.numpy().tobytes() == xs.grad.numpy().tobytes()
    layer = {"relu6": rt.nn.ReLU6, "hardswish": rt.nn.Hardswish, "hardsigmoid": rt.nn.Hardsigmoid}[name]()
    np.testing.assert_array_equal(layer(x * 2.0).numpy(), want.numpy())


def test_cosine_similarity_and_softsign_converted_match_eager():
    def f(x, y):
        return F.cosine_similarity(F.softsign(x), y * 2.0, axis=1)

    sf = dy2st.to_static(f)
    rng = np.random.default_rng(4)
    for n in (2, 5):
        a, b = rng.standard_normal((n, 6)).astype("float32"), rng.standard_normal((n, 6)).astype("float32")
        ins = [rt.to_tensor(v, stop_gradient=False) for v in (a, b, a, b)]
        want, got = f(*ins[:2]), sf(*ins[2:])
        assert want.numpy().tobytes() == got.numpy().tobytes()
        want.sum().backward()
        got.sum().backward()
        assert all(ins[i].grad.numpy().tobytes() == ins[i + 2].grad.numpy().tobytes() for i in (0, 1))
        np.testing.assert_allclose(want.numpy(), (a / (1 + abs(a)) * b).sum(1) / np.sqrt(
            ((a / (1 + abs(a))) ** 2).sum(1) * (b * b).sum(1)), rtol=1e-5)


def test_label_smooth_cross_entropy_converted_match_eager():
    def f(logits, label):  # the Transformer test's CrossEntropyCriterion
        soft = F.label_smooth(label=rt.squeeze(F.one_hot(label, logits.shape[-1])), epsilon=0.1)
        return rt.sum(F.cross_entropy(logits, soft, soft_label=True, reduction="none"))

    sf = dy2st.to_static(f)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 7)).astype("float32")
    y = rt.to_tensor(rng.integers(0, 7, (6, 1)))
    x, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
    want, got = f(x, y), sf(xs, y)
    assert want.numpy().tobytes() == got.numpy().tobytes()
    want.backward()
    got.backward()
    assert x.grad.numpy().tobytes() == xs.grad.numpy().tobytes()
    smooth = np.eye(7, dtype="float32")[y.numpy()[:, 0]] * np.float32(0.9) + np.float32(0.1 / 7)
    onehot = rt.to_tensor(np.eye(7, dtype="float32")[y.numpy()[:, 0]])
    np.testing.assert_allclose(F.label_smooth(onehot, epsilon=0.1).numpy(), smooth, rtol=1e-6)


class _Up(rt.nn.Layer):
    """CycleGAN's DeConv2D: a transposed convolution, a Pad2D, a global-statistics BatchNorm."""

    def __init__(self):
        super().__init__()
        self.deconv = rt.nn.Conv2DTranspose(4, 6, 3, stride=2, padding=[1, 1], groups=2)
        self.pad = rt.nn.Pad2D([0, 1, 0, 1], mode="constant", value=0.0)
        self.bn = rt.nn.BatchNorm(6, use_global_stats=True, trainable_statistics=True, act="leaky_relu")

    def forward(self, x):
        y = self.bn(self.pad(self.deconv(x)))
        return y, F.conv2d_transpose(x, self.deconv.weight, stride=2, padding=1, groups=2, output_size=[8, 10])


def test_conv2d_transpose_converted_match_eager():
    rng = np.random.default_rng(6)
    want_net, got_net = _Up(), _Up()
    got_net.set_state_dict(want_net.state_dict())
    got_net = dy2st.to_static(got_net)
    for n in (1, 3):
        a = rng.standard_normal((n, 4, 4, 5)).astype("float32")
        x, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
        (w1, w2), (g1, g2) = want_net(x), got_net(xs)
        assert w1.shape == [n, 6, 8, 10] and g2.shape == [n, 6, 8, 10]
        assert w1.numpy().tobytes() == g1.numpy().tobytes() and w2.numpy().tobytes() == g2.numpy().tobytes()
        (w1.sum() + (w2 * w2).sum()).backward()
        (g1.sum() + (g2 * g2).sum()).backward()
        assert x.grad.numpy().tobytes() == xs.grad.numpy().tobytes()
        for p, q in zip(want_net.parameters(), got_net.parameters()):
            if p.stop_gradient:  # BatchNorm's running statistics, parameters as in Paddle: no gradient
                assert p.grad is None and q.grad is None and p.numpy().tobytes() == q.numpy().tobytes()
                continue
            assert p.grad.numpy().tobytes() == q.grad.numpy().tobytes()
    with pytest.raises(ValueError, match="output_padding"):
        F.conv2d_transpose(x, want_net.deconv.weight, stride=2, groups=2, output_size=[20, 20])


def test_temporal_shift_converted_match_eager():
    sf = dy2st.to_static(lambda x: F.temporal_shift(x * 1.5, 3, 1.0 / 8))
    a = np.random.default_rng(7).standard_normal((6, 16, 2, 2)).astype("float32")
    x, xs = rt.to_tensor(a, stop_gradient=False), rt.to_tensor(a, stop_gradient=False)
    want, got = F.temporal_shift(x * 1.5, 3, 1.0 / 8), sf(xs)
    assert want.numpy().tobytes() == got.numpy().tobytes()
    (want * want).sum().backward()
    (got * got).sum().backward()
    assert x.grad.numpy().tobytes() == xs.grad.numpy().tobytes()
    v = (a * np.float32(1.5)).reshape(2, 3, 16, 2, 2)
    np.testing.assert_array_equal(want.numpy().reshape(2, 3, 16, 2, 2)[:, 1:, :2], v[:, :-1, :2])  # previous segment
    np.testing.assert_array_equal(want.numpy().reshape(2, 3, 16, 2, 2)[:, 0, :2], 0)


def test_deepcopy_of_a_converted_layer_uses_its_own_parameters():
    import copy

    net = dy2st.to_static(rt.nn.Linear(4, 3))
    x = rt.to_tensor(np.random.default_rng(8).standard_normal((2, 4)).astype("float32"))
    before = net(x).numpy()
    cp = copy.deepcopy(net)
    assert cp.forward.class_instance is cp and net.forward.class_instance is net
    np.testing.assert_array_equal(cp(x).numpy(), before)
    cp.weight.set_value(np.ones((4, 3), "float32"))
    np.testing.assert_allclose(cp(x).numpy(), x.numpy() @ np.ones((4, 3), "float32") + cp.bias.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(net(x).numpy(), before)


def test_load_inference_model_with_paddles_file_names(tmp_path):
    # the model tests' static check: load_inference_model(dir, exe, model_filename=..., params_filename=...)
    net = rt.nn.Linear(3, 2)
    x = np.random.default_rng(9).standard_normal((4, 3)).astype("float32")
    dy2st.save(net, str(tmp_path / "inference" / "m"), input_spec=[dy2st.InputSpec([None, 3], "float32", "x")])
    rt.enable_static()
    try:
        exe = rt.static.Executor()
        prog, feeds, fetches = rt.static.load_inference_model(str(tmp_path / "inference"), exe,
                                                              model_filename="m.pdmodel", params_filename="m.pdiparams")
        out, = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)
        with pytest.raises(ValueError, match="must name one saved model"):
            rt.static.load_inference_model(str(tmp_path / "inference"), exe, model_filename="m.pdmodel",
                                           params_filename="other.pdiparams")
    finally:
        rt.disable_static()
    np.testing.assert_array_equal(out, net(rt.to_tensor(x)).numpy())
