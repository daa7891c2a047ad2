"""rt.nn.SimpleRNN / LSTM / GRU: against a per-sequence numpy reference, finite differences, and to_static."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _np_cell(mode, x, state, p):
    w_ih, w_hh, b_ih, b_hh = p
    if mode == "lstm":
        h, c = state
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        return h, (h, c)
    h = state
    if mode == "gru":
        xr, xz, xc = np.split(x @ w_ih.T + b_ih, 3, axis=-1)
        hr, hz, hc = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
        r, z = _sig(xr + hr), _sig(xz + hz)
        cand = np.tanh(xc + r * hc)
        h = (h - cand) * z + cand
        return h, h
    h = np.tanh(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh)
    return h, h


def _np_rnn(mode, model, x, lens, init=None):
    """Each sequence on its own, over its valid steps only: the meaning sequence_length must have."""
    batch, steps, _ = x.shape
    nd, hid = model.num_directions, model.hidden_size
    cells = []
    for layer in model:
        for cell in ([layer.cell] if nd == 1 else [layer.cell_fw, layer.cell_bw]):
            cells.append([t.numpy().astype(np.float64) for t in
                          (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)])
    outs = np.zeros((batch, steps, nd * hid))
    finals = [[] for _ in range(batch)]
    for b in range(batch):
        seq = x[b, :lens[b]].astype(np.float64)
        for li in range(model.num_layers):
            layer_out = []
            for d in range(nd):
                k = li * nd + d
                if init is None:
                    state = (np.zeros(hid), np.zeros(hid)) if mode == "lstm" else np.zeros(hid)
                else:
                    state = tuple(s[k, b] for s in init) if mode == "lstm" else init[k, b]
                ys = [None] * len(seq)
                for t in (range(len(seq) - 1, -1, -1) if d else range(len(seq))):
                    ys[t], state = _np_cell(mode, seq[t], state, cells[k])
                layer_out.append(np.stack(ys))
                finals[b].append(state)
            seq = np.concatenate(layer_out, axis=-1)
        outs[b, :lens[b]] = seq
    if mode == "lstm":
        h = np.stack([[f[k][0] for f in finals] for k in range(len(cells))])
        c = np.stack([[f[k][1] for f in finals] for k in range(len(cells))])
        return outs, (h, c)
    return outs, np.stack([[f[k] for f in finals] for k in range(len(cells))])


_LAYERS = {"lstm": rt.nn.LSTM, "gru": rt.nn.GRU, "rnn": rt.nn.SimpleRNN}


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("direction,layers", [("forward", 1), ("bidirect", 2), ("bidirectional", 1),
                                              ("forward", 3)])
def test_matches_numpy_reference_with_sequence_lengths(mode, direction, layers):
    rt.seed(3)
    model = _LAYERS[mode](4, 3, num_layers=layers, direction=direction)
    x = np.random.RandomState(1).randn(3, 5, 4).astype(np.float32)
    lens = [5, 2, 4]
    out, final = model(rt.to_tensor(x), sequence_length=rt.to_tensor(lens))
    want_out, want_final = _np_rnn(mode, model, x, lens)
    nd = 2 if direction != "forward" else 1
    assert out.shape == [3, 5, nd * 3]
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
    got = final if mode == "lstm" else (final,)
    want = want_final if mode == "lstm" else (want_final,)
    for g, w in zip(got, want):
        assert g.shape == [layers * nd, 3, 3]
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-6)
    full, _ = model(rt.to_tensor(x))
    np.testing.assert_allclose(full.numpy(), _np_rnn(mode, model, x, [5, 5, 5])[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_time_major_and_initial_states(mode):
    rt.seed(4)
    model = _LAYERS[mode](2, 3, num_layers=2, direction="bidirect", time_major=True)
    rng = np.random.RandomState(2)
    x = rng.randn(4, 2, 2).astype(np.float32)  # [time, batch, input]
    h0 = rng.randn(4, 2, 3).astype(np.float32)
    init = (rt.to_tensor(h0), rt.to_tensor(h0 * 0.5)) if mode == "lstm" else rt.to_tensor(h0)
    out, final = model(rt.to_tensor(x), init)
    ref_init = (h0, h0 * 0.5) if mode == "lstm" else h0
    want_out, want_final = _np_rnn(mode, model, x.transpose(1, 0, 2), [4, 4], ref_init)
    np.testing.assert_allclose(out.numpy(), want_out.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)
    h = final[0] if mode == "lstm" else final
    np.testing.assert_allclose(h.numpy(), want_final[0] if mode == "lstm" else want_final, rtol=1e-5, atol=1e-6)


def test_gradient_matches_finite_differences():
    rt.seed(5)
    model = rt.nn.GRU(2, 2, direction="bidirect")
    for p in model.parameters():
        p.set_value(p.numpy().astype(np.float32))
    x0 = np.random.RandomState(3).randn(2, 3, 2)
    w = np.random.RandomState(4).randn(2, 3, 4)

    def loss64(xv):
        out, _ = _np_rnn("gru", model, xv, [3, 2])
        return (out * w).sum()

    x = rt.to_tensor(x0.astype(np.float32), stop_gradient=False)
    out, _ = model(x, sequence_length=rt.to_tensor([3, 2]))
    (out * rt.to_tensor(w.astype(np.float32))).sum().backward()
    fd = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[i] = 1e-4
        fd[i] = (loss64(x0 + d) - loss64(x0 - d)) / 2e-4
    np.testing.assert_allclose(x.gradient(), fd, rtol=1e-3, atol=1e-4)
    assert fd[1, 2].tolist() == [0.0, 0.0] and x.gradient()[1, 2].tolist() == [0.0, 0.0]


class Tagger(rt.nn.Layer):
    def __init__(self, mode):
        super().__init__()
        layers, direction = {"lstm": (1, "bidirect"), "gru": (1, "bidirect"), "rnn": (2, "forward")}[mode]
        self.rnn = _LAYERS[mode](3, 4, num_layers=layers, direction=direction)
        self.head = rt.nn.Linear(4 * self.rnn.num_directions, 2)

    def forward(self, x, lens):
        out, _ = self.rnn(x, sequence_length=lens)
        return self.head(out).mean(axis=1)


def _same_values_and_gradients(eager, static, x, lens):
    """One call of both models on ``(x, lens)``: outputs and parameter gradients equal (grads cleared after)."""
    ye = eager(rt.to_tensor(x), rt.to_tensor(lens))
    ys = static(rt.to_tensor(x), rt.to_tensor(lens))
    np.testing.assert_allclose(ys.numpy(), ye.numpy(), rtol=1e-5, atol=1e-6)
    ye.sum().backward()
    ys.sum().backward()
    for (n, pe), (_, ps) in zip(eager.named_parameters(), static.named_parameters()):
        np.testing.assert_allclose(ps.gradient(), pe.gradient(), rtol=1e-4, atol=1e-6, err_msg=n)
        pe.clear_grad()
        ps.clear_grad()


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn"])
def test_to_static_matches_eager_values_and_gradients(mode):
    rt.seed(6)
    eager = Tagger(mode)
    rt.seed(6)
    static = dy2st.to_static(Tagger(mode))
    rng = np.random.RandomState(7)
    for batch, lens in ((2, [4, 3]), (3, [1, 4, 2])):
        x = rng.randn(batch, 4, 3).astype(np.float32)
        _same_values_and_gradients(eager, static, x, lens)


class SeqModel(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = rt.nn.GRU(3, 4, direction="bidirect")
        self.head = rt.nn.Linear(8, 1)

    def forward(self, x, lens):
        out, h = self.rnn(x, sequence_length=lens)
        return self.head(out).sum(axis=1) + h.sum()


def test_unknown_time_dim_is_one_while_program_equal_to_eager():
    rt.seed(8)
    eager = SeqModel()
    rt.seed(8)
    static = SeqModel()
    specs = [rt.static.InputSpec([None, None, 3], "float32"), rt.static.InputSpec([None], "int64")]
    static = dy2st.to_static(static, input_spec=specs)
    rng = np.random.RandomState(9)
    for batch, steps, lens in ((2, 5, [5, 2]), (3, 2, [2, 1, 2])):
        x = rng.randn(batch, steps, 3).astype(np.float32)
        _same_values_and_gradients(eager, static, x, lens)
    assert len(static.forward.program_cache) == 1
    prog = static.forward.get_concrete_program(rt.to_tensor(x), rt.to_tensor(lens)).main_program
    assert [op.type for op in prog.global_block().ops].count("while") == 2  # one per direction


def test_save_and_load_with_an_unknown_time_dim(tmp_path):
    rt.seed(8)
    layer = rt.nn.LSTM(3, 2)
    for name, steps in (("any", None),):
        dy2st.save(layer, str(tmp_path / name), input_spec=[rt.static.InputSpec([None, steps, 3], "float32")])
        loaded = dy2st.load(str(tmp_path / name))
        for batch in (1, 4):
            x = rt.to_tensor(np.random.RandomState(batch).randn(batch, 5, 3).astype(np.float32))
            np.testing.assert_allclose(loaded(x)[0].numpy(), layer(x)[0].numpy(), rtol=1e-5, atol=1e-6)


def test_argument_errors():
    with pytest.raises(ValueError, match="direction"):
        rt.nn.GRU(2, 2, direction="both")
    with pytest.raises(ValueError, match="activation"):
        rt.nn.SimpleRNN(2, 2, activation="sigmoid")


@pytest.mark.parametrize("steps", [None])
def test_onnx_export_matches_eager(tmp_path, steps):
    ort = pytest.importorskip("onnxruntime")
    rt.seed(10)
    layer = rt.nn.GRU(3, 4, direction="bidirect")
    path = str(tmp_path / "gru.onnx")
    dy2st.export_onnx(layer, path, input_spec=[rt.static.InputSpec([None, steps, 3], "float32")])
    sess = ort.InferenceSession(path)
    for batch, t in ((2, 5), (1, 5 if steps else 3)):
        x = np.random.RandomState(batch).randn(batch, t, 3).astype(np.float32)
        got = sess.run(None, {sess.get_inputs()[0].name: x})
        out, h = layer(rt.to_tensor(x))
        np.testing.assert_allclose(got[0], out.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], h.numpy(), rtol=1e-5, atol=1e-6)


class LeakyCell(rt.nn.Layer):
    """A user cell with a two-part state, run by rt.nn.RNN."""

    def __init__(self):
        super().__init__()
        self.proj = rt.nn.Linear(2, 3)

    @property
    def state_shape(self):
        return ((3,), (3,))

    def forward(self, x, states):
        h, s = states
        h = rt.tanh(self.proj(x) + 0.5 * h)
        return h * 2, (h, s + h)


def test_rnn_runs_a_user_cell_eagerly_reversed_and_under_to_static():
    rt.seed(11)
    cell = LeakyCell()
    x0 = np.random.RandomState(12).randn(2, 4, 2).astype(np.float32)
    w, b = cell.proj.weight.numpy(), cell.proj.bias.numpy()
    h, s = np.zeros((2, 3)), np.zeros((2, 3))
    want = []
    for t in range(3, -1, -1):
        h = np.tanh(x0[:, t] @ w + b + 0.5 * h)
        s = s + h
        want.insert(0, 2 * h)
    rnn = rt.nn.RNN(cell, is_reverse=True)
    out, (hf, sf_) = rnn(rt.to_tensor(x0))
    np.testing.assert_allclose(out.numpy(), np.stack(want, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sf_.numpy(), s, rtol=1e-5, atol=1e-6)
    static = dy2st.to_static(rnn, input_spec=[rt.static.InputSpec([None, None, 2], "float32")])
    np.testing.assert_allclose(static(rt.to_tensor(x0))[0].numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
