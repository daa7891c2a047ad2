"""More user code ported by changing imports: a seq2seq decoder with ``nn.BeamSearchDecoder`` and
``nn.dynamic_decode`` converted (the decoding loop a ``while`` op that stops when every beam has
ended), ERNIE-style padding masks with a pooler, PP-LCNet / ShuffleNetV2 / HRNet blocks, DETR box
losses, a FastSpeech length regulator, DIN / DeepFM CTR models, a CRF Viterbi decode with tensor
while loops and an NT-Xent loss. Converted equals eager bitwise; expected numbers were recorded with
PaddlePaddle 3.3."""
import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec

V, D = 7, 6


class Seq2SeqBeam(nn.Layer):
    def __init__(self, beam=3, max_len=5):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.cell = nn.GRUCell(D, D)
        self.out = nn.Linear(D, V)
        self.decoder = nn.BeamSearchDecoder(self.cell, start_token=0, end_token=1, beam_size=beam,
                                            embedding_fn=self.emb, output_fn=self.out)
        self.max_len = max_len

    def forward(self, h0):
        outputs, states, lengths = nn.dynamic_decode(self.decoder, inits=h0, max_step_num=self.max_len,
                                                     return_length=True)
        return outputs, states.log_probs, lengths


def _seeded(net, rng):
    sd = net.state_dict()
    net.set_state_dict({k: paddle.to_tensor((rng.standard_normal(sd[k].shape) * 0.5).astype("float32"))
                        for k in sorted(sd)})


def test_beam_search_dynamic_decode_converts_to_one_while_loop_for_any_batch(tmp_path):
    # dynamic_decode raised NotImplementedError under to_static
    rng = np.random.default_rng(0)
    net = Seq2SeqBeam()
    _seeded(net, rng)
    net.out.bias.set_value(paddle.to_tensor(np.where(np.arange(V) == 1, 2.0, 0.0).astype("float32")))  # EOS likely
    conv = dy2st.to_static(net, input_spec=[InputSpec([None, D], "float32")])
    steps = set()
    for scale, b in ((0.3, 2), (1.0, 2), (3.0, 2), (3.0, 1), (1.0, 3)):
        h0 = paddle.to_tensor((rng.standard_normal((b, D)) * scale).astype("float32"))
        want, got = net(h0), conv(h0)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        steps.add(want[0].shape[1])
        if scale == 0.3:  # PaddlePaddle 3.3
            assert want[0].numpy().tolist() == [[[1, 3, 5], [1, 1, 1]], [[1, 0, 5], [1, 1, 1]]]
            assert want[2].numpy().tolist() == [[1, 2, 2], [1, 2, 2]]
            np.testing.assert_allclose(want[1].numpy(), [[-0.48754, -2.92782, -3.24069], [-0.60733, -2.8944, -2.9876]],
                                       atol=2e-5)
    assert steps == {2, 6}  # every beam ended after 2 steps, or max_step_num + 1 steps were taken
    assert len(conv.forward.program_cache) == 1
    prog = conv.forward.program_cache.last().main_program
    assert "while" in [op.type for op in prog.global_block().ops]
    dy2st.save(conv, str(tmp_path / "beam"))
    loaded = dy2st.load(str(tmp_path / "beam"))
    h0 = paddle.to_tensor(rng.standard_normal((4, D)).astype("float32"))
    for w, g in zip(net(h0), loaded(h0)):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_a_tensor_kept_on_a_layer_from_inside_a_converted_loop_is_refused_by_name():
    class Keeps(nn.Layer):
        def forward(self, x):
            def body(i, x):
                self.last = x * 2.0
                return i + 1, x + 1.0
            return paddle.static.nn.while_loop(lambda i, x: i < 3, body, [paddle.zeros([1], "int64"), x])[1]

    with pytest.raises(ValueError, match=r"self\.last is set to a tensor made inside a loop or branch"):
        dy2st.to_static(Keeps())(paddle.ones([2]))


class BNNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 8, bias_attr=False)
        self.bn = nn.BatchNorm1D(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


class ModelEMA:
    """PaddleDetection's weight EMA: a decay warming up with the step count, over the state dict."""

    def __init__(self, model, decay=0.9):
        self.decay, self.step = decay, 0
        self.state = {k: paddle.zeros_like(v) for k, v in model.state_dict().items()}

    def update(self, model):
        decay = min(self.decay, (1 + self.step) / (10 + self.step))
        with paddle.no_grad():
            for k, v in model.state_dict().items():
                self.state[k] = decay * self.state[k] + (1 - decay) * v.detach()
        self.step += 1


def _train_with_groups_warmup_clip_and_ema(net, model):
    rng = np.random.default_rng(1)
    sched = paddle.optimizer.lr.LinearWarmup(paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=3), warmup_steps=2,
                                             start_lr=0.0, end_lr=0.1)
    opt = paddle.optimizer.AdamW(learning_rate=sched, parameters=[
        {"params": net.fc1.parameters(), "learning_rate": 0.5, "weight_decay": 0.0},
        {"params": net.bn.parameters() + net.fc2.parameters(), "beta1": 0.8, "epsilon": 1e-4}],
        weight_decay=0.05, grad_clip=nn.ClipGradByGlobalNorm(0.5), apply_decay_param_fun=lambda n: n.endswith("w_0"))
    ema = ModelEMA(net)
    losses, lrs = [], []
    for _ in range(4):
        x, y = rng.standard_normal((6, 5)).astype("float32"), rng.integers(0, 3, (6,))
        loss = F.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        lrs.append(opt.get_lr())
        sched.step()
        losses.append(float(loss))
        ema.update(net)
    return losses, lrs, ema


def test_adamw_with_group_betas_warmup_cosine_global_norm_clip_and_weight_ema_trains_as_paddle():
    # a parameter group's beta1 / epsilon (Paddle's _update_param_group) were ignored
    runs = []
    for convert in (False, True):
        net = BNNet()
        rng = np.random.default_rng(0)
        sd = net.state_dict()
        draws = {k: rng.standard_normal(sd[k].shape) * 0.5 for k in sorted(sd)}
        net.set_state_dict({k: paddle.to_tensor((np.abs(v) + 0.5 if "variance" in k else v).astype("float32"))
                            for k, v in draws.items()})
        runs.append((net,) + _train_with_groups_warmup_clip_and_ema(net, dy2st.to_static(net) if convert else net))
    (eager, losses, lrs, ema), (net, closses, clrs, cema) = runs
    assert closses == losses and clrs == lrs
    for k, v in ema.state.items():
        np.testing.assert_array_equal(cema.state[k].numpy(), v.numpy(), err_msg=k)
    # PaddlePaddle 3.3
    np.testing.assert_allclose(losses, [1.2256376, 1.2456766, 1.1515588, 1.029307], rtol=2e-6)
    np.testing.assert_allclose(lrs, [0.0, 0.05, 0.1, 0.075], rtol=1e-12)
    np.testing.assert_allclose(eager.fc2.weight.numpy()[0], [-0.5121332, -0.3235094, 0.3142213], rtol=2e-5)
    np.testing.assert_allclose(ema.state["fc2.weight"].numpy()[0], [-0.5272842, -0.325784, 0.3315065], rtol=2e-5)
    # the EMA weights served by the converted model in eval mode
    for m in (eager, net):
        m.set_state_dict(ema.state)
        m.eval()
    x = paddle.to_tensor(np.random.default_rng(2).standard_normal((3, 5)).astype("float32"))
    np.testing.assert_array_equal(dy2st.to_static(net)(x).numpy(), eager(x).numpy())


def _gather_scatter_einsum(x, y, idx):
    a = paddle.einsum("bij,bjk->bik", x, y)
    trace = paddle.einsum("bii->b", x)
    outer = paddle.einsum("bi,bj->bij", x[:, 0], y[:, :, 0])
    picked = paddle.take_along_axis(a, idx, axis=2)
    put = paddle.put_along_axis(a, idx, picked * 2.0, axis=2)
    added = paddle.put_along_axis(a, idx, picked, axis=2, reduce="add")
    rows = paddle.scatter(x.reshape([-1, 3]), paddle.to_tensor([1, 0]), y.reshape([-1, 4])[:2, :3])
    return a, trace, outer, picked, put, added, rows


def test_einsum_take_put_along_axis_and_scatter_serve_any_batch_with_gradients():
    # the gradient of einsum('bii->b') refused the unknown batch dim ("repeated subscripts need known dims")
    conv = dy2st.to_static(_gather_scatter_einsum, input_spec=[InputSpec([None, 3, 3]), InputSpec([None, 3, 4]),
                                                               InputSpec([None, 3, 1], "int64")])
    rng = np.random.default_rng(0)
    for b in (2, 3):
        args = [rng.standard_normal((b, 3, 3)), rng.standard_normal((b, 3, 4)), rng.integers(0, 4, (b, 3, 1))]
        runs = []
        for f in (_gather_scatter_einsum, conv):
            ins = [paddle.to_tensor(v.astype("float32"), stop_gradient=False) for v in args[:2]] + [
                paddle.to_tensor(args[2])]
            outs = f(*ins)
            sum((o * (k + 1.0)).sum() for k, o in enumerate(outs)).backward()
            runs.append([o.numpy() for o in outs] + [ins[0].grad.numpy(), ins[1].grad.numpy()])
        for want, got in zip(*runs):
            np.testing.assert_array_equal(got, want)
    # the diagonal's own dims are still needed to build it
    with pytest.raises(NotImplementedError, match="repeated subscripts"):
        f = dy2st.to_static(lambda m: paddle.einsum("iij->j", m), input_spec=[InputSpec([None, None, 2])])
        m = paddle.ones([2, 2, 2])
        m.stop_gradient = False
        f(m).sum().backward()
