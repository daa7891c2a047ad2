"""More user code ported by changing imports: PaddleVideo's TSM (``temporal_shift`` and its reshape
fallback over a run-time number of clips), a sparse top-k mixture of experts with a load-balancing loss
(experts that no token chose are skipped by a tensor ``if``), PaddleRec's MMoE and PaddleTS's N-BEATS
(generic, trend and seasonality stacks, with an early exit once the backcast residual is small at
inference), and PGL's GraphSAGE (mean aggregation by ``send_u_recv`` over any graph). Trained under
``to_static`` they equal eager bitwise and serve any batch from one Program, saved and loaded."""
import numpy as np

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import seeded
from tests.compat.port_checks import same_training as _same_training


class ConvBNLayer(nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, act=None):
        super().__init__()
        self._conv = nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride,
                               padding=(kernel_size - 1) // 2, bias_attr=False)
        self._batch_norm = nn.BatchNorm2D(out_channels)
        self._act = act

    def forward(self, inputs):
        y = self._batch_norm(self._conv(inputs))
        if self._act:
            y = getattr(paddle.nn.functional, self._act)(y)
        return y


class TSMBlock(nn.Layer):
    """PaddleVideo's ResNet-TSM bottleneck: the input shifted along time before the first conv."""

    def __init__(self, c, num_seg, use_op=True):
        super().__init__()
        self.num_seg, self.use_op = num_seg, use_op
        self.conv0 = ConvBNLayer(c, c, 1, act="relu")
        self.conv1 = ConvBNLayer(c, c, 3, act="relu")
        self.conv2 = ConvBNLayer(c, c, 1)

    def _shift(self, x):
        if self.use_op:
            return F.temporal_shift(x, self.num_seg, 1.0 / 8)
        # the reshape fallback, as in PaddleVideo's tsm_utils: the number of clips is known at run time only
        nt, c, h, w = x.shape
        x = paddle.reshape(x, [-1, self.num_seg, c, h, w])
        fold = c // 8
        pad = paddle.zeros_like(x[:, :1, :fold])
        prev = paddle.concat([pad, x[:, :-1, :fold]], axis=1)  # clip t reads clip t - 1
        nxt = paddle.concat([x[:, 1:, fold:2 * fold], pad], axis=1)  # ... and clip t + 1
        out = paddle.concat([prev, nxt, x[:, :, 2 * fold:]], axis=2)
        return paddle.reshape(out, [-1, c, h, w])

    def forward(self, inputs):
        y = self.conv2(self.conv1(self.conv0(self._shift(inputs))))
        return F.relu(paddle.add(y, inputs))


class TSM(nn.Layer):
    def __init__(self, num_seg=3, classes=4, use_op=True):
        super().__init__()
        self.num_seg = num_seg
        self.stem = ConvBNLayer(3, 8, 3, stride=2, act="relu")
        self.blocks = nn.Sequential(TSMBlock(8, num_seg, use_op), TSMBlock(8, num_seg, use_op))
        self.avgpool2d = nn.AdaptiveAvgPool2D(1)
        self.dropout = nn.Dropout(p=0.0)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        # [N, T, C, H, W] -> [N*T, C, H, W] as PaddleVideo's recognizer2d does
        x = paddle.reshape(x, [-1] + x.shape[2:])
        feature = self.blocks(self.stem(x))
        feature = self.dropout(self.avgpool2d(feature))
        feature = paddle.reshape(feature, [-1, self.num_seg, feature.shape[1]])  # TSN head: average over clips
        feature = paddle.mean(feature, axis=1)
        feature = paddle.reshape(feature, shape=[-1, 8])
        return self.fc(feature)


def _clips(rng, n, hw):
    return (rng.standard_normal((n, 3, 3, hw, hw)).astype("float32"),)


def _label(b):
    return paddle.to_tensor((b[0].mean((1, 2, 3, 4)) > 0).astype("int64"))


def test_tsm_temporal_shift_and_its_reshape_fallback_train_like_eager(tmp_path):
    rng = np.random.default_rng(0)
    batches = [_clips(rng, 2, 8), _clips(rng, 3, 6), _clips(rng, 1, 8)]  # any number of videos and frame size
    losses = {use_op: _same_training(lambda: TSM(use_op=use_op), [InputSpec([None, 3, 3, None, None])], batches,
                                     lambda o, b: F.cross_entropy(o, _label(b)), tmp_path / str(use_op))
              for use_op in (True, False)}
    np.testing.assert_allclose(losses[True], losses[False], rtol=1e-5)  # the op and the fallback agree



def test_temporal_shift_with_run_time_height_and_width_equals_eager():
    f = dy2st.to_static(lambda x: F.temporal_shift(x, 2, 0.25), input_spec=[InputSpec([None, 8, None, None])])
    rng = np.random.default_rng(1)
    for n, h, w in ((4, 3, 5), (2, 1, 1), (6, 4, 2)):
        x = paddle.to_tensor(rng.standard_normal((n, 8, h, w)).astype("float32"))
        np.testing.assert_array_equal(f(x).numpy(), F.temporal_shift(x, 2, 0.25).numpy())


class ExpertFFN(nn.Layer):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class MoELayer(nn.Layer):
    """A top-k gated mixture of experts (GShard/Switch style, as in PaddleNLP's MoE layers): each token
    goes to its ``k`` best experts, weighted by the renormalised gate; an expert no token chose is not
    run; the load-balancing loss is ``E * sum(mean gate prob * fraction routed)``."""

    def __init__(self, d=6, hidden=8, num_experts=4, top_k=2):
        super().__init__()
        self.num_experts, self.top_k = num_experts, top_k
        self.gate = nn.Linear(d, num_experts, bias_attr=False)
        self.experts = nn.LayerList([ExpertFFN(d, hidden) for _ in range(num_experts)])

    def forward(self, x):
        d = x.shape[-1]
        tokens = x.reshape([-1, d])
        probs = F.softmax(self.gate(tokens), axis=-1)
        topk_val, topk_idx = paddle.topk(probs, self.top_k, axis=-1)
        topk_val = topk_val / topk_val.sum(axis=-1, keepdim=True)
        out = paddle.zeros_like(tokens)
        for e in range(self.num_experts):
            weight = (topk_val * (topk_idx == e).astype(topk_val.dtype)).sum(-1)
            idx = paddle.nonzero(weight > 0).flatten()
            if idx.shape[0] > 0:
                y = self.experts[e](paddle.gather(tokens, idx)) * paddle.gather(weight, idx).unsqueeze(-1)
                out = paddle.index_add(out, idx, 0, y)
        routed = F.one_hot(topk_idx[:, 0], self.num_experts).mean(0)
        aux_loss = self.num_experts * paddle.sum(probs.mean(0) * routed)
        return out.reshape(x.shape), aux_loss


class MoEClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 6)
        self.moe = MoELayer()
        self.norm = nn.LayerNorm(6)
        self.head = nn.Linear(6, 3)

    def forward(self, ids):
        h = self.emb(ids)
        y, aux = self.moe(h)
        h = self.norm(h + y)
        return self.head(h.mean(1)), aux


def test_top_k_moe_skips_unchosen_experts_and_trains_like_eager(tmp_path):
    rng = np.random.default_rng(1)
    batches = [(rng.integers(0, 12, (b, n)),) for b, n in ((2, 3), (3, 2), (2, 4))]
    _same_training(MoEClassifier, [InputSpec([None, None], "int64")], batches,
                   lambda o, b: F.cross_entropy(o[0], paddle.to_tensor(b[0][:, 0] % 3)) + 0.1 * o[1], tmp_path)
    # a single token reaches only top_k of the 4 experts: the others are skipped, as eagerly
    net = seeded(MoEClassifier(), seed=2)
    f = dy2st.to_static(seeded(MoEClassifier(), seed=2), input_spec=[InputSpec([None, None], "int64")])
    for ids in (rng.integers(0, 12, (1, 1)), rng.integers(0, 12, (3, 5))):
        want, got = net(paddle.to_tensor(ids)), f(paddle.to_tensor(ids))
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        sum(want).backward()
        sum(got).backward()
        grads = [(k, p.grad, q.grad) for (k, p), q in zip(net.named_parameters(), f.parameters())]
        for k, want_g, got_g in grads:  # an expert that did not run has no gradient either way
            assert (got_g is None) == (want_g is None), k
            np.testing.assert_array_equal(np.asarray(got_g), np.asarray(want_g), err_msg=k)
        assert any(g is None for _, g, _ in grads) == (ids.size == 1)
        net.clear_gradients()
        f.clear_gradients()


class MMoELayer(nn.Layer):
    """PaddleRec's MMoE (census income / marital status): shared experts, one softmax gate and tower per task."""

    def __init__(self, feature_size=6, expert_num=3, expert_size=4, tower_size=4, gate_num=2):
        super().__init__()
        self.expert_num, self.expert_size, self.gate_num = expert_num, expert_size, gate_num
        self._param_expert, self._param_gate, self._param_tower, self._param_tower_out = [], [], [], []
        for i in range(0, self.expert_num):
            linear = self.add_sublayer(name="expert_" + str(i), sublayer=nn.Linear(
                feature_size, expert_size, weight_attr=nn.initializer.Constant(value=0.1),
                bias_attr=nn.initializer.Constant(value=0.1), name="expert_" + str(i)))
            self._param_expert.append(linear)
        for i in range(0, self.gate_num):
            self._param_gate.append(self.add_sublayer(name="gate_" + str(i), sublayer=nn.Linear(
                feature_size, expert_num, name="gate_" + str(i))))
            self._param_tower.append(self.add_sublayer(name="tower_" + str(i), sublayer=nn.Linear(
                expert_size, tower_size, name="tower_" + str(i))))
            self._param_tower_out.append(self.add_sublayer(name="tower_out_" + str(i), sublayer=nn.Linear(
                tower_size, 2, name="tower_out_" + str(i))))

    def forward(self, input_data):
        expert_outputs = []
        for i in range(0, self.expert_num):
            expert_outputs.append(F.relu(self._param_expert[i](input_data)))
        expert_concat = paddle.concat(x=expert_outputs, axis=1)
        expert_concat = paddle.reshape(expert_concat, [-1, self.expert_num, self.expert_size])
        output_layers = []
        for i in range(0, self.gate_num):
            cur_gate = F.softmax(self._param_gate[i](input_data))
            cur_gate = paddle.reshape(cur_gate, [-1, self.expert_num, 1])
            cur_gate_expert = paddle.sum(x=paddle.multiply(x=expert_concat, y=cur_gate), axis=1)
            cur_tower = F.relu(self._param_tower[i](cur_gate_expert))
            out = F.softmax(self._param_tower_out[i](cur_tower))
            output_layers.append(paddle.clip(out, min=1e-15, max=1.0 - 1e-15))
        return output_layers


def _mmoe_loss(o, b):
    # PaddleRec's mmoe net: the positive column by paddle.slice, log_loss against each task's label
    losses = []
    for i, pred in enumerate(o):
        p1 = paddle.slice(pred, axes=[1], starts=[1], ends=[2])
        label = paddle.to_tensor(b[0][:, i:i + 1] > 0)  # a task label the features decide
        losses.append(paddle.mean(x=F.log_loss(input=p1, label=paddle.cast(label, "float32"))))
    return paddle.add_n(losses)


def test_mmoe_trains_like_eager(tmp_path):
    rng = np.random.default_rng(3)
    batches = [(rng.standard_normal((n, 6)).astype("float32"),) for n in (4, 3, 5)]
    _same_training(MMoELayer, [InputSpec([None, 6])], batches, _mmoe_loss, tmp_path)


class _Block(nn.Layer):
    """PaddleTS's N-BEATS block: a fully connected stack, then theta expanded by the block's basis
    (generic: a linear map; trend: a polynomial in time; seasonality: a Fourier series)."""

    def __init__(self, in_len, out_len, kind, width=8, degree=2, harmonics=2):
        super().__init__()
        self.in_len, self.out_len, self.kind = in_len, out_len, kind
        self.fc_stack = nn.Sequential(nn.Linear(in_len, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        if kind == "generic":
            self.backcast_fc, self.forecast_fc = nn.Linear(width, in_len), nn.Linear(width, out_len)
            return
        n = degree + 1 if kind == "trend" else 2 * harmonics
        self.theta_b = nn.Linear(width, n, bias_attr=False)
        self.theta_f = nn.Linear(width, n, bias_attr=False)
        t_b = paddle.arange(in_len, dtype="float32") / in_len
        t_f = paddle.arange(out_len, dtype="float32") / out_len
        if kind == "trend":
            p = paddle.arange(degree + 1, dtype="float32").unsqueeze(-1)
            basis_b, basis_f = paddle.pow(t_b.unsqueeze(0), p), paddle.pow(t_f.unsqueeze(0), p)
        else:
            k = paddle.arange(1, harmonics + 1, dtype="float32").unsqueeze(-1) * 2 * np.pi
            basis_b = paddle.concat([paddle.cos(k * t_b), paddle.sin(k * t_b)], 0)
            basis_f = paddle.concat([paddle.cos(k * t_f), paddle.sin(k * t_f)], 0)
        self.register_buffer("basis_b", basis_b)
        self.register_buffer("basis_f", basis_f)

    def forward(self, x):
        h = self.fc_stack(x)
        if self.kind == "generic":
            return self.backcast_fc(h), self.forecast_fc(h)
        return paddle.matmul(self.theta_b(h), self.basis_b), paddle.matmul(self.theta_f(h), self.basis_f)


class NBEATS(nn.Layer):
    def __init__(self, in_len=8, out_len=4, stacks=("trend", "seasonality", "generic"), blocks=2, tol=0.3):
        super().__init__()
        self.tol = tol
        self.stacks = nn.LayerList([nn.LayerList([_Block(in_len, out_len, kind) for _ in range(blocks)])
                                    for kind in stacks])

    def forward(self, x):
        # [B, in_len, 1] as PaddleTS feeds past_target; doubly residual stacking
        backcast = paddle.squeeze(x, axis=-1)
        forecast = paddle.zeros([backcast.shape[0], self.stacks[0][0].out_len])
        used = 0
        for stack in self.stacks:
            for block in stack:
                b, f = block(backcast)
                backcast = backcast - b
                forecast = forecast + f
                used += 1
            # at inference the remaining stacks are skipped once every residual is small
            if not self.training and paddle.abs(backcast).max() < self.tol:
                break
        return forecast.unsqueeze(-1), used


def test_nbeats_doubly_residual_stacks_train_like_eager_and_exit_early(tmp_path):
    rng = np.random.default_rng(4)
    t = np.arange(12, dtype="float32")

    def series(n, scale=1.0):
        s = np.sin(t[None] * rng.uniform(0.3, 1.0, (n, 1)) + rng.uniform(0, 3, (n, 1))) * scale
        return s[:, :8, None].astype("float32"), s[:, 8:, None].astype("float32")

    batches = [series(n) for n in (3, 2, 4)]
    targets = {id(x): y for x, y in batches}
    losses = _same_training(NBEATS, [InputSpec([None, 8, 1])], [b[:1] for b in batches],
                            lambda o, b: F.mse_loss(o[0], paddle.to_tensor(targets[id(b[0])])), tmp_path)
    assert losses[-1] < losses[0]
    net = seeded(NBEATS(), seed=5, scale=0.1).eval()
    f = dy2st.to_static(seeded(NBEATS(), seed=5, scale=0.1).eval(), input_spec=[InputSpec([None, 8, 1])])
    used = set()
    for n, scale in ((2, 0.05), (3, 1.0), (1, 0.1), (2, 3.0)):
        x = paddle.to_tensor(series(n, scale)[0])
        (want, want_n), (got, got_n) = net(x), f(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert int(got_n) == want_n
        used.add(want_n)
    assert len(used) > 1  # both the early exit and the full depth are taken
    assert len(f.forward.program_cache) == 1


class EarlyExitStack(nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = nn.LayerList([nn.Linear(3, 3) for _ in range(4)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
            if not self.training and x.max() > 1.0:
                break
        return x


def test_tensor_break_in_a_for_over_a_layer_list_whose_body_reads_self():
    # the break's `cond` snapshots what `self` reaches, the LayerList being iterated among it; putting
    # back its unchanged contents once broke the iteration ("OrderedDict mutated during iteration")
    net = seeded(EarlyExitStack(), scale=0.6).eval()
    f = dy2st.to_static(seeded(EarlyExitStack(), scale=0.6).eval(), input_spec=[InputSpec([None, 3])])
    for v in (0.1, 1.0, 3.0, -2.0):
        x = paddle.to_tensor(np.full((2, 3), v, "float32"))
        np.testing.assert_array_equal(f(x).numpy(), net(x).numpy())


class GraphSageConv(nn.Layer):
    """PGL's GraphSAGE layer: neighbours averaged by ``send_u_recv`` (a node with no in-edge gets
    zeros), self and neighbour projections added, L2-normalised."""

    def __init__(self, input_size, hidden_size, activation=None):
        super().__init__()
        self.self_linear = nn.Linear(input_size, hidden_size)
        self.neigh_linear = nn.Linear(input_size, hidden_size)
        self.activation = activation

    def forward(self, edges, feature):
        neigh_feature = paddle.geometric.send_u_recv(feature, edges[:, 0], edges[:, 1], reduce_op="mean")
        output = self.self_linear(feature) + self.neigh_linear(neigh_feature)
        if self.activation is not None:
            output = self.activation(output)
        return F.normalize(output, axis=1)


class GraphSage(nn.Layer):
    def __init__(self):
        super().__init__()
        self.convs = nn.LayerList([GraphSageConv(5, 6, F.relu), GraphSageConv(6, 3)])

    def forward(self, edges, feature):
        for conv in self.convs:
            feature = conv(edges, feature)
        return feature


def test_graphsage_mean_aggregation_trains_like_eager_for_any_graph(tmp_path):
    rng = np.random.default_rng(5)
    graph = lambda n, e: (rng.integers(0, n, (e, 2)).astype("int64"), rng.standard_normal((n, 5)).astype("float32"))  # noqa: E731
    _same_training(GraphSage, [InputSpec([None, 2], "int64"), InputSpec([None, 5])],
                   [graph(6, 4), graph(4, 9), graph(7, 3)],
                   lambda o, b: F.cross_entropy(o, paddle.to_tensor(np.arange(len(b[1])) % 3)), tmp_path)
