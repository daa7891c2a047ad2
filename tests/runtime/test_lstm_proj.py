"""nn.LSTM / nn.LSTMCell with proj_size (Paddle's projected LSTM): h = (o * tanh(c)) @ weight_ho, the
recurrent weight reads the projected h.  Against a numpy loop, converted (run-time dims) against eager
with gradients, and a Paddle checkpoint (whose flat names are positional past each weight_ho) loading
by its cell names."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _np_lstm(x, cell, reverse=False):
    """x [batch, time, in] through one projected LSTM cell: outputs [batch, time, proj], final (h, c)."""
    w = {k: getattr(cell, k).numpy().astype("float64") for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_ho")}
    b, steps = x.shape[:2]
    h, c = np.zeros((b, w["weight_ho"].shape[1])), np.zeros((b, w["weight_ho"].shape[0]))
    out = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        g = x[:, t] @ w["weight_ih"].T + w["bias_ih"] + h @ w["weight_hh"].T + w["bias_hh"]
        i, f, cand, o = np.split(g, 4, axis=-1)
        c = _sig(f) * c + _sig(i) * np.tanh(cand)
        h = (_sig(o) * np.tanh(c)) @ w["weight_ho"]
        out[t] = h
    return np.stack(out, 1), h, c


@pytest.mark.parametrize("direction", ["forward", "bidirect"])
def test_projected_lstm_matches_a_numpy_loop_and_converts(direction):
    rt.seed(0)
    lstm = rt.nn.LSTM(5, 6, direction=direction, proj_size=3)
    x = np.random.default_rng(0).standard_normal((2, 4, 5)).astype("float32")
    y, (h, c) = lstm(rt.to_tensor(x))
    cells = [lstm[0].cell] if direction == "forward" else [lstm[0].cell_fw, lstm[0].cell_bw]
    refs = [_np_lstm(x.astype("float64"), cell, reverse=k == 1) for k, cell in enumerate(cells)]
    np.testing.assert_allclose(y.numpy(), np.concatenate([r[0] for r in refs], -1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), np.stack([r[1] for r in refs]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), np.stack([r[2] for r in refs]), rtol=1e-5, atol=1e-6)
    assert list(cells[0].weight_hh.shape) == [24, 3] and list(cells[0].weight_ho.shape) == [6, 3]

    static = dy2st.to_static(rt.nn.LSTM(5, 6, direction=direction, proj_size=3),
                             input_spec=[dy2st.InputSpec([None, None, 5], "float32")])
    static.set_state_dict(lstm.state_dict())
    for steps in (4, 7):
        xs = np.random.default_rng(steps).standard_normal((3, steps, 5)).astype("float32")
        got = []
        for layer in (lstm, static):
            t = rt.to_tensor(xs, stop_gradient=False)
            out, (hh, cc) = layer(t)
            (out.sum() + 2 * hh.sum() + cc.mean()).backward()
            got.append((out.numpy(), t.grad.numpy()))
        for a, b in zip(*got):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert len(static.forward.program_cache) == 1


def test_a_paddle_checkpoint_loads_by_its_cell_names():
    lstm = rt.nn.LSTM(8, 6, proj_size=3, direction="bidirect")
    sd = {k: v.numpy() for k, v in lstm.state_dict().items()}
    # Paddle 3.3 lists positional flat names too, shifted past each weight_ho: ignored here
    garbled = {"weight_ih_l0": sd["0.cell_fw.weight_ih"], "weight_ih_l0_reverse": sd["0.cell_fw.weight_ho"]}
    other = rt.nn.LSTM(8, 6, proj_size=3, direction="bidirect")
    missing, unexpected = other.set_state_dict({**sd, **garbled})
    assert missing == [] and sorted(unexpected) == sorted(garbled)
    x = rt.randn([2, 3, 8])
    np.testing.assert_array_equal(other(x)[0].numpy(), lstm(x)[0].numpy())


def test_proj_size_must_be_below_hidden_size():
    with pytest.raises(ValueError, match="proj_size"):
        rt.nn.LSTM(4, 3, proj_size=3)
