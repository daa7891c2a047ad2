"""More user code ported by changing imports: PaddleRec's ESMM over a DCN-v2 cross network (a sparse
embedding, ``paddle.slice``), BYOL's two views with an EMA target updated by ``set_value`` under
``no_grad`` inside ``forward``, a pointer-generator decoder adding its copy distribution with
``put_along_axis(reduce="add")`` over an extended vocabulary, a DETR-style head matching boxes by
``cdist`` + ``topk``, and MobileViT's unfolding into patches and folding back (a resize when the map
does not divide into patches). Trained under ``to_static`` they equal eager bitwise and serve any
batch (and length) from one Program, saved and loaded."""
import math

import numpy as np
import pytest

import dy2st
import runtime as paddle
import runtime.nn.functional as F
from runtime import nn
from runtime.static import InputSpec
from tests.compat.port_checks import same_training as _same_training


class CrossNetV2(nn.Layer):
    def __init__(self, d=6, layers=2):
        super().__init__()
        self.W = nn.LayerList([nn.Linear(d, d) for _ in range(layers)])
    def forward(self, x0):
        x = x0
        for lin in self.W:
            x = x0 * lin(x) + x
        return x

class ESMM(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 3, sparse=True)
        self.cross = CrossNetV2()
        self.ctr = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2))
        self.cvr = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2))
    def forward(self, ids):
        x = self.emb(ids).reshape([-1, 6])
        x = self.cross(x)
        ctr = F.softmax(self.ctr(x))
        cvr = F.softmax(self.cvr(x))
        ctr_prop_one = paddle.slice(ctr, axes=[1], starts=[1], ends=[2])
        cvr_prop_one = paddle.slice(cvr, axes=[1], starts=[1], ends=[2])
        ctcvr_prop_one = paddle.multiply(x=ctr_prop_one, y=cvr_prop_one)
        ctcvr_prop = paddle.concat(x=[1 - ctcvr_prop_one, ctcvr_prop_one], axis=1)
        return ctr, ctcvr_prop

class BYOL(nn.Layer):
    def __init__(self):
        super().__init__()
        self.online = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1D(8), nn.ReLU(), nn.Linear(8, 4))
        self.predictor = nn.Linear(4, 4)
        self.target = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1D(8), nn.ReLU(), nn.Linear(8, 4))
        for p in self.target.parameters():
            p.stop_gradient = True
        self.m = 0.9
    @paddle.no_grad()
    def _momentum_update(self):
        for po, pt in zip(self.online.parameters(), self.target.parameters()):
            pt.set_value(pt * self.m + po * (1 - self.m))
    def loss(self, p, z):
        return 2 - 2 * (F.normalize(p, axis=-1) * F.normalize(z.detach(), axis=-1)).sum(-1)
    def forward(self, x1, x2):
        self._momentum_update()
        p1, p2 = self.predictor(self.online(x1)), self.predictor(self.online(x2))
        z1, z2 = self.target(x1), self.target(x2)
        return (self.loss(p1, z2) + self.loss(p2, z1)).mean()

class PointerGen(nn.Layer):
    def __init__(self, V=10, d=8):
        super().__init__()
        self.V = V
        self.emb = nn.Embedding(V + 5, d)
        self.enc = nn.GRU(d, d)
        self.cell = nn.GRUCell(d, d)
        self.att = nn.Linear(d, d)
        self.gen = nn.Linear(2 * d, V)
        self.pgen = nn.Linear(2 * d, 1)
    def forward(self, src, max_oov: int = 2, steps: int = 3):
        B = src.shape[0]
        enc, h = self.enc(self.emb(src))
        h = h[0]
        ext_ids = src
        tok = paddle.zeros([B], "int64")
        outs = []
        for t in range(steps):
            _, h = self.cell(self.emb(tok), h)
            a = F.softmax(paddle.matmul(enc, self.att(h).unsqueeze(-1)).squeeze(-1), -1)  # B,L
            ctx = (a.unsqueeze(-1) * enc).sum(1)
            hc = paddle.concat([h, ctx], -1)
            p_gen = F.sigmoid(self.pgen(hc))
            vocab = F.softmax(self.gen(hc), -1) * p_gen
            vocab = paddle.concat([vocab, paddle.zeros([B, max_oov])], 1)
            final = paddle.put_along_axis(vocab, ext_ids, a * (1 - p_gen), axis=1, reduce="add")
            outs.append(final)
            tok = final.argmax(-1)
        return paddle.stack(outs, 1)

class DETRHead(nn.Layer):
    def __init__(self, nq=4, d=8):
        super().__init__()
        self.query = nn.Embedding(nq, d)
        self.proj = nn.Linear(6, d)
        self.box = nn.Linear(d, 4)
        self.cls = nn.Linear(d, 3)
    def forward(self, feats, gt):
        mem = self.proj(feats)  # B,N,d
        q = self.query.weight.unsqueeze(0).expand([feats.shape[0], -1, -1])
        a = F.softmax(paddle.matmul(q, mem, transpose_y=True), -1)
        hs = paddle.matmul(a, mem)
        boxes = F.sigmoid(self.box(hs))
        logits = self.cls(hs)
        cost = paddle.cdist(boxes, gt, p=1)  # B,nq,G
        val, idx = paddle.topk(-cost, 1, axis=1)  # best query per gt
        matched = paddle.take_along_axis(boxes, idx.transpose([0, 2, 1]).expand([-1, -1, 4]), 1)
        l1 = (matched - gt).abs().mean()
        target = paddle.zeros(logits.shape[:2], "int64")
        target = paddle.put_along_axis(target, idx.squeeze(1), paddle.ones_like(idx.squeeze(1)), axis=1)
        ce = F.cross_entropy(logits, target.unsqueeze(-1))
        return l1 + ce


def test_esmm_over_a_dcn_v2_cross_network_trains_like_eager(tmp_path):
    rng = np.random.default_rng(0)
    _same_training(ESMM, [InputSpec([None, 2], "int64")], [(rng.integers(0, 20, (b, 2)),) for b in (4, 5)],
                   lambda o, b: F.cross_entropy(o[0], paddle.ones([o[0].shape[0], 1], "int64"))
                   + F.cross_entropy(o[1], paddle.zeros([o[1].shape[0], 1], "int64")), tmp_path)


def test_byol_two_views_with_an_ema_target_updated_in_forward_trains_like_eager(tmp_path):
    rng = np.random.default_rng(1)
    batches = [tuple(rng.standard_normal((b, 6)).astype("float32") for _ in range(2)) for b in (4, 5)]
    _same_training(BYOL, [InputSpec([None, 6]), InputSpec([None, 6])], batches, lambda o, b: o, tmp_path)


def test_pointer_generator_copy_distribution_trains_like_eager_for_any_batch(tmp_path):
    # any source length: the GRU encoder is then a while op, with eager's gradients bitwise
    rng = np.random.default_rng(2)
    _same_training(PointerGen, [InputSpec([None, None], "int64")],
                   [(rng.integers(0, 12, (b, n)),) for b, n in ((2, 5), (3, 4))],
                   lambda o, b: -paddle.log(o + 1e-6).mean(), tmp_path)


def test_detr_style_cdist_topk_matching_trains_like_eager(tmp_path):
    rng = np.random.default_rng(3)
    batches = [(rng.standard_normal((b, n, 6)).astype("float32"), rng.random((b, 2, 4)).astype("float32"))
               for b, n in ((2, 5), (3, 4))]
    _same_training(DETRHead, [InputSpec([None, None, 6]), InputSpec([None, 2, 4])], batches, lambda o, b: o, tmp_path)


class MobileViTBlock(nn.Layer):
    def __init__(self, c=4, d=8, ph=2, pw=2):
        super().__init__()
        self.ph, self.pw = ph, pw
        self.local = nn.Sequential(nn.Conv2D(c, c, 3, padding=1), nn.BatchNorm2D(c), nn.Silu(), nn.Conv2D(c, d, 1))
        self.attn = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0)
        self.proj = nn.Conv2D(d, c, 1)
        self.fusion = nn.Conv2D(2 * c, c, 3, padding=1)

    def unfolding(self, feature_map):
        patch_w, patch_h = self.pw, self.ph
        patch_area = patch_w * patch_h
        batch_size, in_channels, orig_h, orig_w = feature_map.shape
        new_h = int(math.ceil(orig_h / self.ph) * self.ph)
        new_w = int(math.ceil(orig_w / self.pw) * self.pw)
        interpolate = False
        if new_w != orig_w or new_h != orig_h:
            feature_map = F.interpolate(feature_map, size=(new_h, new_w), mode="bilinear", align_corners=False)
            interpolate = True
        num_patch_w, num_patch_h = new_w // patch_w, new_h // patch_h
        num_patches = num_patch_h * num_patch_w
        reshaped_fm = feature_map.reshape([batch_size * in_channels * num_patch_h, patch_h, num_patch_w, patch_w])
        transposed_fm = reshaped_fm.transpose([0, 2, 1, 3])
        reshaped_fm = transposed_fm.reshape([batch_size, in_channels, num_patches, patch_area])
        transposed_fm = reshaped_fm.transpose([0, 3, 2, 1])
        patches = transposed_fm.reshape([batch_size * patch_area, num_patches, -1])
        info_dict = {"orig_size": (orig_h, orig_w), "batch_size": batch_size, "interpolate": interpolate,
                     "total_patches": num_patches, "num_patches_w": num_patch_w, "num_patches_h": num_patch_h}
        return patches, info_dict

    def folding(self, patches, info_dict):
        patches = patches.reshape([info_dict["batch_size"], self.pw * self.ph, info_dict["total_patches"], -1])
        batch_size, pixels, num_patches, channels = patches.shape
        num_patch_h, num_patch_w = info_dict["num_patches_h"], info_dict["num_patches_w"]
        patches = patches.transpose([0, 3, 2, 1])
        feature_map = patches.reshape([batch_size * channels * num_patch_h, num_patch_w, self.ph, self.pw])
        feature_map = feature_map.transpose([0, 2, 1, 3])
        feature_map = feature_map.reshape([batch_size, channels, num_patch_h * self.ph, num_patch_w * self.pw])
        if info_dict["interpolate"]:
            feature_map = F.interpolate(feature_map, size=info_dict["orig_size"], mode="bilinear", align_corners=False)
        return feature_map

    def forward(self, x):
        res = x
        fm = self.local(x)
        patches, info = self.unfolding(fm)
        patches = self.attn(patches)
        fm = self.proj(self.folding(patches, info))
        return self.fusion(paddle.concat([res, fm], 1))

class MViT(nn.Layer):
    def __init__(self):
        super().__init__()
        self.b = MobileViTBlock()
        self.head = nn.Linear(4, 3)
    def forward(self, x):
        return self.head(self.b(x).mean([2, 3]))


@pytest.mark.parametrize("hw", [4, 5])
def test_mobilevit_unfold_attend_fold_trains_like_eager_for_any_batch(tmp_path, hw):
    rng = np.random.default_rng(hw)
    _same_training(MViT, [InputSpec([None, 4, hw, hw])],
                   [(rng.standard_normal((b, 4, hw, hw)).astype("float32"),) for b in (2, 3)],
                   lambda o, b: (o ** 2).mean(), tmp_path)


def _decode(h, w):
    outs = []
    for t in range(4):
        h = paddle.tanh(h * w)
        outs.append(h)
        if (h > 0.9).all():
            break
    return paddle.stack(outs, 1)


def test_a_list_appended_before_a_tensor_break_in_a_python_range_is_refused_at_the_users_line():
    # Paddle turns this loop into a while over a tensor array; here it stays unrolled and says so.
    f = dy2st.to_static(_decode, input_spec=[InputSpec([None, 3]), InputSpec([3])])
    with pytest.raises(ValueError, match="set in only one branch of a tensor-dependent `if`"):
        f(paddle.ones([2, 3]), paddle.ones([3]))
