"""nn.BeamSearchDecoder and nn.dynamic_decode (runtime/nn/decode.py), eager: beams, scores and lengths as
Paddle 3.3 gives them for the same weights (hard-coded below, from paddle.nn in a scratch script with the
same sin-pattern weights), with a GRU cell (batch-major) and an LSTM cell (time-major); and dynamic_decode
inside converted code."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _model(cell_name, k):
    cell, emb, out = getattr(rt.nn, cell_name)(4, 6), rt.nn.Embedding(7, 4), rt.nn.Linear(6, 7)
    for m in (cell, emb, out):
        m.set_state_dict({n: rt.to_tensor((np.sin(np.arange(np.prod(v.shape)) * k + i) * 0.8)
                                          .reshape(v.shape).astype("float32"))
                          for i, (n, v) in enumerate(m.state_dict().items())})
    return cell, emb, out


H0 = (np.cos(np.arange(12)) * 0.5).reshape(2, 6).astype("float32")
# Paddle 3.3: dynamic_decode(BeamSearchDecoder(cell, 0, end, 3, emb, out), inits, max_step_num=5, return_length=True)
PADDLE = {
    "GRUCell": (6, 0.9, False, [[[6, 1, 0], [6, 1, 1], [6, 1, 1], [6, 1, 1], [6, 1, 1], [6, 1, 1]],
                                [[1, 1, 0], [1, 2, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1]]],
                [[-1.90343, -6.60131, -6.74082], [-6.51823, -6.57429, -6.69658]], [[1, 6, 6], [6, 6, 6]]),
    "LSTMCell": (3, 1.3, True, [[[5, 5, 5], [5, 5, 5]], [[0, 5, 0], [0, 0, 0]], [[5, 5, 5], [5, 5, 5]],
                                [[5, 5, 5], [5, 5, 5]], [[5, 5, 5], [0, 0, 5]], [[5, 5, 0], [5, 0, 5]]],
                 [[-8.17079, -8.21378, -8.24025], [-8.09107, -8.1491, -8.19106]], [[6, 6, 6], [6, 6, 6]]),
}


@pytest.mark.parametrize("cell_name", sorted(PADDLE))
def test_beam_search_matches_paddle(cell_name):
    end, k, time_major, ids, log_probs, lengths = PADDLE[cell_name]
    cell, emb, out = _model(cell_name, k)
    decoder = rt.nn.BeamSearchDecoder(cell, start_token=0, end_token=end, beam_size=3, embedding_fn=emb, output_fn=out)
    h0 = rt.to_tensor(H0)
    inits = h0 if cell_name == "GRUCell" else (h0, h0 * 0.5)
    outs, states, lens = rt.nn.dynamic_decode(decoder, inits=inits, max_step_num=5, return_length=True,
                                              output_time_major=time_major)
    assert outs.numpy().tolist() == ids and lens.numpy().tolist() == lengths
    np.testing.assert_allclose(states.log_probs.numpy(), log_probs, atol=2e-5)
    assert outs.dtype == "int64" and states.finished.dtype == "bool"


_CELL, _EMB, _OUT = _model("GRUCell", 0.9)
_DECODER = rt.nn.BeamSearchDecoder(_CELL, 0, 6, 2, embedding_fn=_EMB, output_fn=_OUT)


def _decode_inside(h0):
    return rt.nn.dynamic_decode(_DECODER, inits=h0, max_step_num=3)[0]


def test_dynamic_decode_in_converted_code_decodes_as_eagerly():
    # it raised NotImplementedError: the decoding loop is a while op now
    tiled = rt.nn.BeamSearchDecoder.tile_beam_merge_with_batch(rt.to_tensor(H0), 3)
    np.testing.assert_array_equal(tiled.numpy(), np.repeat(H0, 3, axis=0))
    conv = dy2st.to_static(_decode_inside)
    for h0 in (H0, H0 * 3.0, H0[:1]):
        np.testing.assert_array_equal(conv(rt.to_tensor(h0)).numpy(), _decode_inside(rt.to_tensor(h0)).numpy())
