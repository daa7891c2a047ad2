"""PaddleOCR / PaddleNLP style code ported by changing imports: a CRNN (a bidirectional 2-layer
``nn.LSTM``) trained with ``F.ctc_loss`` and ``nn.CTCLoss`` and loaded from a checkpoint laid out as
Paddle writes it (the LSTM's flat ``weight_ih_l0`` names next to the cells' names; tied weights under
each name), and a text CNN whose max pool spans the sequence. Converted equals eager bitwise; the
expected numbers come from PaddlePaddle 3.3."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

from error_helpers import notes

from .helpers import train_same


class CRNN(nn.Layer):
    def __init__(self, ncls=6):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2D(1, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                                 nn.MaxPool2D((2, 1), (2, 1)), nn.Conv2D(8, 8, 3, padding=1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2D((1, None)))
        self.rnn = nn.LSTM(8, 8, num_layers=2, direction="bidirect")
        self.fc = nn.Linear(16, ncls)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).transpose([0, 2, 1])
        h, _ = self.rnn(f)
        return self.fc(h)


def _ctc(model, x, label, label_len):
    logp = F.log_softmax(model(x), axis=-1).transpose([1, 0, 2])
    in_len = paddle.full([x.shape[0]], logp.shape[0], dtype="int64")
    mean = F.ctc_loss(logp, label, in_len, label_len, blank=0, reduction="mean")
    total = nn.CTCLoss(blank=0, reduction="sum")(logp, label, in_len, label_len)
    return mean + 0.01 * total


LSTM_FLAT = [f"{k}_l{i}{s}" for i in (0, 1) for s in ("", "_reverse")
             for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]


def test_crnn_with_ctc_loss_trains_like_eager_and_loads_a_paddle_laid_out_checkpoint(tmp_path):
    # nn.LSTM's state_dict lacked Paddle's flat names: a Paddle checkpoint raised "unexpected keys".
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((2, 1, 8, 12)).astype("float32"), rng.integers(1, 6, (2, 4)).astype("int32"),
             np.array([4, 2], "int64")) for _ in range(2)]
    eager, net = train_same(CRNN, data, _ctc)
    keys = [k for k in eager.state_dict() if k.startswith("rnn.")]
    assert keys[:16] == ["rnn." + k for k in LSTM_FLAT] and keys[16:20] == [
        "rnn.0.cell_fw.weight_ih", "rnn.0.cell_fw.weight_hh", "rnn.0.cell_fw.bias_ih", "rnn.0.cell_fw.bias_hh"]
    assert eager.rnn.weight_hh_l1_reverse is eager.rnn[1].cell_bw.weight_hh
    assert len(eager.rnn.parameters()) == 16 and next(eager.rnn.named_parameters())[0] == "weight_ih_l0"
    # a checkpoint listing each tensor once, under either name, loads all of it
    fresh = CRNN()
    sd = {k: v for k, v in eager.state_dict().items() if ".cell_" not in k}
    fresh.set_state_dict(sd)
    eager.eval()
    fresh.eval()
    x = paddle.to_tensor(rng.standard_normal((3, 1, 8, 10)).astype("float32"))
    np.testing.assert_array_equal(fresh(x).numpy(), eager(x).numpy())
    dy2st.save(dy2st.to_static(net, input_spec=[InputSpec([None, 1, 8, None], "float32")]), str(tmp_path / "crnn"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "crnn"))(x).numpy(), eager(x).numpy())


def test_ctc_loss_values_are_paddles():
    logits = (np.arange(40).reshape(5, 2, 4) % 7 / 3.0 - 1.0).astype("float32")
    logp = F.log_softmax(paddle.to_tensor(logits), -1)
    args = (paddle.to_tensor(np.array([[1, 2], [3, 0]], "int32")), paddle.to_tensor(np.array([5, 4], "int64")),
            paddle.to_tensor(np.array([2, 1], "int64")))
    np.testing.assert_allclose(F.ctc_loss(logp, *args, reduction="none").numpy(), [4.0336628, 3.4605112], rtol=1e-6)
    np.testing.assert_allclose(F.ctc_loss(logp, *args).numpy(), 2.7386713, rtol=1e-6)
    np.testing.assert_allclose(F.ctc_loss(logp, *args, reduction="none", norm_by_times=True).numpy(),
                               [4.0336628, 3.4605112], rtol=1e-6)


class Tied(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 4)
        self.head = nn.Linear(4, 7, bias_attr=False)
        self.head.weight = self.emb.weight  # [7, 4] used as [in, out] after a transpose below
        self.same = self.emb

    def forward(self, ids):
        return paddle.matmul(self.same(ids), self.head.weight, transpose_y=True)


def test_a_shared_tensor_is_listed_under_each_name_as_paddle_does():
    m = Tied()
    assert list(m.state_dict()) == ["emb.weight", "head.weight", "same.weight"]
    assert [n for n, _ in m.named_parameters()] == ["emb.weight"] and len(m.parameters()) == 1
    other = Tied()
    other.set_state_dict({"head.weight": m.emb.weight})  # one of its names is enough
    ids = paddle.to_tensor(np.array([[1, 5, 6]]))
    np.testing.assert_array_equal(dy2st.to_static(other)(ids).numpy(), m(ids).numpy())
    with pytest.raises(ValueError, match="missing keys"):
        Tied().set_state_dict({}, strict=True)
    with pytest.warns(UserWarning, match="Skip loading for"):  # Paddle's default: a warning per key
        Tied().set_state_dict({})


def test_a_loaded_model_lists_the_originals_keys_and_takes_its_checkpoint(tmp_path):
    # the loaded layer held each tensor under one name: the original's checkpoint had unexpected keys
    for cls, spec in ((Tied, InputSpec([None, 3], "int64")), (CRNN, InputSpec([None, 1, 8, None], "float32"))):
        net = cls()
        net.eval()
        dy2st.save(dy2st.to_static(net, input_spec=[spec]), str(tmp_path / cls.__name__))
        loaded = dy2st.load(str(tmp_path / cls.__name__))
        assert sorted(loaded.state_dict()) == sorted(net.state_dict())
        loaded.set_state_dict(net.state_dict())
        cls().set_state_dict(loaded.state_dict())


def test_layer_names_follow_paddles_snake_case():
    # PReLU was p_relu_N, SimpleRNNCell simplernn_cell_N: optimizer-state keys differed from Paddle's.
    assert nn.PReLU().full_name().startswith("p_re_lu_")
    assert nn.SimpleRNN(2, 2).parameters()[0].name.startswith("simple_rnn_cell_")
    assert nn.LeakyReLU().full_name().startswith("leaky_re_lu_")
    assert nn.BatchNorm2D(2).full_name().startswith("batch_norm2d_")
    assert nn.Conv2DTranspose(1, 1, 1).full_name().startswith("conv2d_transpose_")


class TextCNN(nn.Layer):
    def __init__(self, vocab=11, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.convs = nn.LayerList([nn.Conv1D(dim, 4, k) for k in (2, 3, 4)])
        self.fc = nn.Linear(12, 3)

    def forward(self, ids):
        x = self.emb(ids).transpose([0, 2, 1])
        outs = []
        for i, conv in enumerate(self.convs):
            if i == 0:
                y = F.pad(x, [1, 2], mode="constant", value=0.0, data_format="NCL")
            else:
                y = F.pad(x, [i, i], mode="reflect" if i == 1 else "replicate", data_format="NCL")
            y = F.relu(conv(y))
            outs.append(F.max_pool1d(y, y.shape[-1]).squeeze(-1))
        return self.fc(paddle.concat(outs, axis=-1))


def test_text_cnn_with_pads_and_a_sequence_wide_max_pool(tmp_path):
    rng = np.random.default_rng(2)
    data = [(rng.integers(0, 11, (3, 9)), rng.integers(0, 3, (3,))) for _ in range(3)]
    eager, net = train_same(TextCNN, data, lambda m, x, y: F.cross_entropy(m(x), y))
    ids = paddle.to_tensor(rng.integers(0, 11, (2, 9)))
    dy2st.save(dy2st.to_static(net, input_spec=[InputSpec([None, 9], "int64")]), str(tmp_path / "tc"))
    np.testing.assert_array_equal(dy2st.load(str(tmp_path / "tc"))(ids).numpy(), eager(ids).numpy())
    # with the length left None the window is a run-time value: refused at the user's line, saying why
    with pytest.raises(TypeError, match="kernel_size is known only when the Program runs") as info:
        dy2st.save(dy2st.to_static(TextCNN(), input_spec=[InputSpec([None, None], "int64")]), str(tmp_path / "t2"))
    assert "F.max_pool1d(y, y.shape[-1])" in notes(info.value) and "adaptive" in str(info.value)


def test_adaptive_avg_pool_keeps_or_averages_a_run_time_dim_as_eager_bitwise():
    # (1, None) over a width known only at run time raised "spatial size must be known".
    def pool(x):
        return F.adaptive_avg_pool2d(x, (1, None)) * 2.0 + F.adaptive_avg_pool2d(x, [None, 1]).mean()

    sf = dy2st.to_static(pool, input_spec=[InputSpec([None, 3, None, None], "float32")])
    rng = np.random.default_rng(3)
    for h, w in [(8, 5), (4, 33), (1, 2)]:
        a = (rng.standard_normal((2, 3, h, w)) * 50).astype("float32")
        xs = [paddle.to_tensor(a, stop_gradient=False) for _ in range(2)]
        outs = [pool(xs[0]), sf(xs[1])]
        assert outs[1].shape == [2, 3, 1, w]
        np.testing.assert_array_equal(outs[1].numpy(), outs[0].numpy())
        for x, o in zip(xs, outs):
            o.sum().backward()
        np.testing.assert_array_equal(xs[1].grad.numpy(), xs[0].grad.numpy())
    with pytest.raises(ValueError, match=r"must be known for an output size of \[2, 3\]"):
        dy2st.to_static(lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
                        input_spec=[InputSpec([None, 3, None, 4])])(paddle.ones([1, 3, 4, 4]))


@pytest.mark.parametrize("decay, want", [(None, [0.95, 0.8550]), (0.2, [0.93, 0.7984]),
                                         (paddle.regularizer.L2Decay(0.2), [0.93, 0.7984]),
                                         (paddle.regularizer.L1Decay(0.2), [0.94, 0.8260])])
def test_momentum_rescale_grad_scales_the_gradient_before_an_l2_decay_is_added(decay, want):
    # rescale_grad scaled the decay term too: Paddle's kernel adds coeff * param after the rescale
    # (an L1 term, added by the regularizer beforehand, is rescaled with the gradient)
    for fused in (True, False):
        lin = nn.Linear(1, 2, bias_attr=False)
        lin.weight.set_value(paddle.ones([1, 2]))
        params = lin.parameters() if fused else [{"params": lin.parameters()}]
        opt = paddle.optimizer.Momentum(0.1, momentum=0.9, parameters=params, rescale_grad=0.5, weight_decay=decay)
        got = []
        for _ in range(2):
            lin(paddle.ones([1, 1])).sum().backward()
            opt.step()
            opt.clear_grad()
            got.append(float(lin.weight[0, 0]))
        np.testing.assert_allclose(got, want, rtol=1e-6)


class SegNet(nn.Layer):
    """PaddleSeg's pattern: features at 1/2 and 1/4, upsampled to the skip's and the input's size."""

    def __init__(self):
        super().__init__()
        self.d1 = nn.Sequential(nn.Conv2D(3, 4, 3, stride=2, padding=1), nn.GroupNorm(2, 4), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2D(4, 4, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Conv2D(8, 2, 1)

    def forward(self, x):
        s1 = self.d1(x)
        up = F.interpolate(self.d2(s1), size=paddle.shape(s1)[2:], mode="bilinear", align_corners=False)
        logit = self.head(paddle.concat([up, s1], axis=1))
        logit = F.interpolate(logit, scale_factor=2, mode="nearest")
        return F.interpolate(logit, paddle.shape(x)[2:], mode="bilinear", align_corners=True)


def test_segmentation_resizing_over_run_time_sizes_trains_and_serves_like_eager(tmp_path):
    # interpolate refused dims an InputSpec leaves None ("dim 2 of the input must be known")
    rng = np.random.default_rng(4)
    batches = [(rng.standard_normal((2, 3, h, w)).astype("float32"), rng.integers(0, 2, (2, h, w)))
               for h, w in [(8, 12), (11, 7), (8, 12)]]
    eager, net = SegNet(), SegNet()
    net.set_state_dict(eager.state_dict())
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, 3, None, None], "float32")])
    opts = [paddle.optimizer.Adam(0.01, parameters=m.parameters()) for m in (eager, net)]
    for x, y in batches:
        for f, opt in ((eager, opts[0]), (conv, opts[1])):
            loss = F.cross_entropy(f(paddle.to_tensor(x)), paddle.to_tensor(y).unsqueeze(1), axis=1)
            loss.backward()
            opt.step()
            opt.clear_grad()
            assert loss.shape == []
    for k, v in eager.state_dict().items():
        np.testing.assert_array_equal(net.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    dy2st.save(conv, str(tmp_path / "seg"))
    loaded = dy2st.load(str(tmp_path / "seg"))
    for h, w in [(16, 16), (5, 9)]:
        x = paddle.to_tensor(rng.standard_normal((1, 3, h, w)).astype("float32"))
        assert loaded(x).shape == [1, 2, h, w]
        np.testing.assert_array_equal(loaded(x).numpy(), eager(x).numpy())
