"""Paddle's nn.TransformerDecoderLayer / TransformerDecoder / Transformer and
F.scaled_dot_product_attention: Paddle 3.3's values (hard-coded), its state-dict keys, incremental
decoding with caches equal to the full causal pass, and a converted model against eager with gradients."""
import numpy as np

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn


def _fill(model):
    """The same deterministic weights Paddle's reference got (sorted state-dict keys)."""
    for i, (_, p) in enumerate(sorted(model.state_dict().items())):
        p.set_value((0.3 * np.sin(np.arange(p.size).reshape(p.shape) * 0.7 + i)).astype("float32"))


def _inputs():
    src = np.cos(np.arange(2 * 5 * 8)).reshape(2, 5, 8).astype("float32")
    tgt = np.sin(np.arange(2 * 4 * 8) * 1.3).reshape(2, 4, 8).astype("float32")
    keep = np.ones((2, 1, 1, 5), bool)
    keep[1, ..., 3:] = False
    return src, tgt, keep


def test_transformer_matches_paddle_values_keys_and_gradient():
    m = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0)
    # Paddle 3.3's state-dict keys of the same model (a few of them)
    keys = set(m.state_dict())
    assert {"encoder.layers.0.self_attn.q_proj.weight", "encoder.norm.bias", "decoder.layers.1.cross_attn.v_proj.bias",
            "decoder.layers.1.norm3.weight", "decoder.norm.weight", "decoder.layers.0.linear2.bias"} <= keys
    assert len(keys) == 16 + 2 + 2 * 26 + 2
    _fill(m)
    m.eval()
    src, tgt, keep = _inputs()
    s = rt.to_tensor(src, stop_gradient=False)
    mask = m.generate_square_subsequent_mask(4)
    assert mask.dtype == rt.float32 and np.isneginf(mask.numpy()[0, 1]) and mask.numpy()[1, 0] == 0
    out = m(s, rt.to_tensor(tgt), rt.to_tensor(keep), mask, rt.to_tensor(keep))
    (out * out).sum().backward()
    np.testing.assert_allclose(out.numpy()[1, :, 0], [0.33824205, 0.3279262, 0.33628866, 0.33653706], atol=2e-6)
    np.testing.assert_allclose(s.grad.numpy()[0, 0, :3], [0.01226125, -0.00397517, -0.00158374], atol=2e-6)


def test_decoder_cache_steps_equal_the_causal_pass():
    rt.seed(1)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=True), 2)
    dec.eval()
    src, tgt, _ = _inputs()
    memory = rt.to_tensor(src)
    cache = dec.gen_cache(memory)
    for t in range(4):
        step, cache = dec(rt.to_tensor(tgt[:, t:t + 1]), memory, cache=cache)
    assert cache[1][0].k.shape == [2, 2, 4, 4] and isinstance(cache[1][1], nn.MultiHeadAttention.StaticCache)
    full = dec(rt.to_tensor(tgt), memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(None, 4))
    np.testing.assert_allclose(step.numpy()[:, 0], full.numpy()[:, 3], atol=2e-6)


def test_scaled_dot_product_attention_matches_paddle_causal_gqa():
    q = np.sin(np.arange(2 * 3 * 4 * 4)).reshape(2, 3, 4, 4).astype("float32")
    k = np.cos(np.arange(2 * 3 * 2 * 4)).reshape(2, 3, 2, 4).astype("float32")
    ts = [rt.to_tensor(a, stop_gradient=False) for a in (q, k, k * 2)]
    out = F.scaled_dot_product_attention(*ts, is_causal=True)
    out.sum().backward()
    np.testing.assert_allclose(out.numpy()[1, 2, :, 0], [-0.6119033, 0.9793321, -0.02509837, -1.2196323], atol=2e-6)
    np.testing.assert_allclose(ts[1].grad.numpy()[0, :, 1, 0], [0.09771657, 0.4327383, -0.53045493], atol=2e-6)


class Seq2Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.net = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, activation="gelu")
        self.head = nn.Linear(8, 3)

    def forward(self, src, tgt):
        mask = self.net.generate_square_subsequent_mask(tgt.shape[1])
        return self.head(self.net(src, tgt, tgt_mask=mask))


def test_converted_transformer_matches_eager_with_gradients():
    rt.seed(2)
    eager = Seq2Seq()
    net = Seq2Seq()
    net.set_state_dict(eager.state_dict())
    net = dy2st.to_static(net)
    src, tgt, _ = _inputs()
    for model in (eager, net):
        model(rt.to_tensor(src), rt.to_tensor(tgt)).square().sum().backward()
    np.testing.assert_allclose(net(rt.to_tensor(src), rt.to_tensor(tgt)).numpy(),
                               eager(rt.to_tensor(src), rt.to_tensor(tgt)).numpy(), atol=1e-6)
    for (name, pe), ps in zip(eager.named_parameters(), net.parameters()):
        np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), atol=1e-5, err_msg=name)
