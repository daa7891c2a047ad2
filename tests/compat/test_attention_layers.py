"""Paddle's attention layers as a Paddle transformer model uses them (rt.nn.MultiHeadAttention,
TransformerEncoderLayer, TransformerEncoder): attention against a numpy reference, the mask
conventions, and an encoder converted with a None batch and length, trained, saved and loaded."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime import nn

from .helpers import arr


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_multi_head_attention_matches_numpy_and_masks():
    rt.seed(0)
    mha = nn.MultiHeadAttention(8, 2, need_weights=True)
    x = arr(2, 4, 8)
    keep = np.ones((2, 1, 1, 4), bool)
    keep[1, ..., 2:] = False
    out, w = mha(rt.to_tensor(x), attn_mask=rt.to_tensor(keep))

    def proj(layer, v):
        return v @ layer.weight.numpy() + layer.bias.numpy()

    def heads(v):
        return v.reshape(2, 4, 2, 4).transpose(0, 2, 1, 3)
    q, k, v = (heads(proj(p, x)) for p in (mha.q_proj, mha.k_proj, mha.v_proj))
    s = q @ k.transpose(0, 1, 3, 2) / 2.0 + np.where(keep, 0.0, -1e9)
    ref_w = _softmax(s)
    ref = proj(mha.out_proj, (ref_w @ v).transpose(0, 2, 1, 3).reshape(2, 4, 8))
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    assert np.all(w.numpy()[1, :, :, 2:] < 1e-6)
    float_mask = rt.to_tensor(np.where(keep, 0.0, -1e9).astype("float32"))
    np.testing.assert_allclose(mha(rt.to_tensor(x), attn_mask=float_mask)[0].numpy(), out.numpy(), rtol=1e-6)


class Encoder(nn.Layer):
    def __init__(self, pre_norm=False):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, normalize_before=pre_norm)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if pre_norm else None)
        self.cls = nn.Linear(8, 3)

    def forward(self, ids):
        mask = rt.unsqueeze(ids != 0, [1, 2])
        h = self.encoder(self.emb(ids), mask)
        return self.cls(h[:, 0])


@pytest.mark.parametrize("pre_norm", [False, True])
def test_transformer_encoder_converts_trains_and_saves(pre_norm, tmp_path):
    rt.seed(3)
    eager = Encoder(pre_norm)
    net = Encoder(pre_norm)
    net.set_state_dict(eager.state_dict())
    net = dy2st.to_static(net)
    rng = np.random.default_rng(0)
    # SGD, not Adam: k_proj.bias gets an exactly-zero gradient in theory (softmax ignores a shift
    # of every key), so both runs hold float noise there, which Adam would scale up to lr.
    oe = rt.optimizer.SGD(learning_rate=0.1, parameters=eager.parameters())
    os_ = rt.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    eager.eval(), net.eval()     # dropout off: the two runs draw no random numbers
    for _ in range(2):
        ids = rng.integers(1, 20, (3, 5)).astype("int64")
        ids[2, 3:] = 0
        label = rt.to_tensor(rng.integers(0, 3, (3,)))
        for model, opt in ((eager, oe), (net, os_)):
            loss = F.cross_entropy(model(rt.to_tensor(ids)), label)
            loss.backward()
            opt.step()
            opt.clear_grad()
    for pe, ps in zip(eager.parameters(), net.parameters()):
        np.testing.assert_allclose(ps.numpy(), pe.numpy(), rtol=1e-4, atol=1e-5)
    path = str(tmp_path / "enc")
    dy2st.save(net, path, input_spec=[dy2st.InputSpec([None, None], "int64", "ids")])
    loaded = dy2st.load(path)
    for shape in ((1, 3), (4, 7)):
        ids = rng.integers(1, 20, shape).astype("int64")
        np.testing.assert_allclose(loaded(rt.to_tensor(ids)).numpy(), eager(rt.to_tensor(ids)).numpy(),
                                   rtol=1e-4, atol=1e-5)


def test_encoder_with_run_time_dims_exports_to_onnx(tmp_path):
    import onnxruntime as ort   # the `test` extra installs it
    rt.seed(4)
    net = Encoder(pre_norm=True)
    net.eval()
    path = str(tmp_path / "enc.onnx")
    dy2st.export_onnx(net, path, input_spec=[dy2st.InputSpec([None, None], "int64", "ids")])
    sess = ort.InferenceSession(path)
    for shape in ((1, 4), (3, 9)):
        ids = np.random.default_rng(shape[1]).integers(0, 20, shape).astype("int64")
        got = sess.run(None, {sess.get_inputs()[0].name: ids})[0]
        np.testing.assert_allclose(got, net(rt.to_tensor(ids)).numpy(), rtol=1e-4, atol=1e-5)
