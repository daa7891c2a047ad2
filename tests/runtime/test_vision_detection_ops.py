"""paddle.vision.ops' detection functions (RoI pooling, box coding, prior boxes...) against values
Paddle 3.3 gave for the same inputs (data/paddle33_detection.npz, keyed as below; the inputs are built
here the same way), and converted with dy2st.to_static against eager, gradients included."""
import os

import numpy as np
import pytest

import runtime as rt
from compat.helpers import check

REF = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "paddle33_detection.npz"))

X = np.random.default_rng(7).standard_normal((2, 8, 5, 6)).astype("float32")
BOXES = np.array([[0.5, 1.2, 4.3, 3.1], [1, 0, 3, 2.5], [-0.7, 0.3, 5.6, 4.9]], "float32")
BOXES_NUM = np.array([1, 2], "int32")
G = np.random.default_rng(8).standard_normal((3, 8, 2, 2)).astype("float32")

ROI = {"align": ("roi_align", dict(output_size=2)),
       "align_unaligned": ("roi_align", dict(output_size=2, spatial_scale=0.8, sampling_ratio=2, aligned=False)),
       "pool": ("roi_pool", dict(output_size=2, spatial_scale=0.9)),
       "psroi": ("psroi_pool", dict(output_size=2, spatial_scale=1.1))}


@pytest.mark.parametrize("key", sorted(ROI))
def test_roi_pooling_matches_paddle_values_and_gradients(key):
    fn, kw = ROI[key]
    x = rt.to_tensor(X, stop_gradient=False)
    out = getattr(rt.vision.ops, fn)(x, rt.to_tensor(BOXES), rt.to_tensor(BOXES_NUM), **kw)
    (out * rt.to_tensor(G[:, :out.shape[1]])).sum().backward()
    # the forward is Paddle's CPU kernel step for step (bitwise for roi_align); the gradients add in another order
    np.testing.assert_allclose(out.numpy(), REF[key + "_out"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), REF[key + "_grad"], rtol=1e-5, atol=1e-6)


def test_roi_align_gradient_is_the_derivative_of_its_values():
    # a box under one pixel too (aligned): Paddle 3.3's CPU gradient kernel widens such boxes to one
    # pixel and so disagrees with its own forward; this one is the forward's derivative
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 5))
    boxes = rt.to_tensor(np.array([[0.4, 0.7, 3.1, 2.2], [2.3, 1.1, 2.6, 1.5]]))
    t = rt.to_tensor(x, stop_gradient=False)
    rt.vision.ops.roi_align(t, boxes, rt.to_tensor([2], "int32"), (2, 3)).sum().backward()
    eps, num = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        f = [float(rt.vision.ops.roi_align(rt.to_tensor(x + s * d), boxes, rt.to_tensor([2], "int32"), (2, 3)).sum())
             for s in (1, -1)]
        num[i] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(t.grad.numpy(), num, atol=1e-6)


def test_roi_layers_and_errors():
    x, b, n = rt.to_tensor(X), rt.to_tensor(BOXES), rt.to_tensor(BOXES_NUM)
    np.testing.assert_array_equal(rt.vision.ops.RoIAlign(2)(x, b, n).numpy(), REF["align_out"])
    np.testing.assert_array_equal(rt.vision.ops.RoIPool(2, 0.9)(x, b, n).numpy(), REF["pool_out"])
    assert rt.vision.ops.PSRoIPool((2, 2), 1.1)(x, b, n).shape == [3, 2, 2, 2]
    with pytest.raises(ValueError, match="boxes_num"):
        rt.vision.ops.roi_align(x, b, rt.to_tensor([1, 1], "int32"), 2)
    t = rt.to_tensor(X, stop_gradient=False)  # no boxes at all: empty outputs, zero gradients
    for fn in (rt.vision.ops.roi_align, rt.vision.ops.roi_pool, rt.vision.ops.psroi_pool):
        out = fn(t, rt.zeros([0, 4]), rt.to_tensor([0, 0], "int32"), 2)
        assert out.shape[0] == 0
        out.sum().backward()
        assert float(t.grad.abs().sum()) == 0.0
        t.clear_grad()
    with pytest.raises(ValueError, match="divisible"):
        rt.vision.ops.psroi_pool(x, b, n, 3)


def test_roi_pooling_converted_serves_any_number_of_boxes():
    def heads(x, boxes, boxes_num):
        a = rt.vision.ops.roi_align(x, boxes, boxes_num, 2, spatial_scale=0.5)
        p = rt.vision.ops.roi_pool(x, boxes, boxes_num, (1, 2))
        s = rt.vision.ops.psroi_pool(x, boxes, boxes_num, 2)
        return a * 2.0, p, s

    two = (X, BOXES[:2], np.array([1, 1], "int32"))
    check(heads, (X, BOXES, BOXES_NUM), two, grad=True, ops=["roi_align", "roi_pool", "psroi_pool"])


# -- box_coder, prior_box ------------------------------------------------------------------------------------
def _corner_boxes(n, seed):
    r = np.random.default_rng(seed)
    a = r.uniform(0, 10, (n, 2))
    return np.concatenate([a, a + r.uniform(1, 5, (n, 2))], 1).astype("float32")


PRIOR, PRIOR4, TGT = _corner_boxes(3, 1), _corner_boxes(4, 2), _corner_boxes(4, 3)
VAR = np.random.default_rng(4).uniform(0.1, 0.3, (3, 4)).astype("float32")
DELTAS = (np.random.default_rng(5).standard_normal((4, 3, 4)) * 0.5).astype("float32")
CODER = {"enc_var": (PRIOR, "var", TGT, "encode_center_size", True, 0),
         "enc_list_pixel": (PRIOR, [0.1, 0.1, 0.2, 0.2], TGT, "encode_center_size", False, 0),
         "dec_var_pixel": (PRIOR, "var", DELTAS, "decode_center_size", False, 0),
         "dec_list_axis1": (PRIOR4, [0.1, 0.2, 0.3, 0.4], DELTAS, "decode_center_size", True, 1)}
PRIORS = {"a": dict(min_sizes=[2.0, 4.0], max_sizes=[3.0, 6.0], aspect_ratios=[2.0, 3.0], flip=True, clip=True),
          "b": dict(min_sizes=[2.5], aspect_ratios=[0.5, 2.0], steps=[4.0, 3.0], offset=0.3),
          "c": dict(min_sizes=[2.0, 4.0], max_sizes=[3.0, 6.0], aspect_ratios=[2.0], flip=True,
                    min_max_aspect_ratios_order=True, variance=[0.2, 0.3, 0.1, 0.4]),
          # float64 inputs: Paddle's sizes in float32 (its attributes), positions in float64
          "d64": dict(min_sizes=[2.0, 4.0], max_sizes=[3.0, 6.1], aspect_ratios=[2.0, 0.7], flip=True, offset=0.3,
                      min_max_aspect_ratios_order=True, clip=True, variance=[0.1, 0.3, 0.2, 0.7])}


@pytest.mark.parametrize("key", sorted(CODER))
def test_box_coder_matches_paddle(key):
    p, v, t, code, norm, axis = CODER[key]
    var = rt.to_tensor(VAR) if v == "var" else v
    out = rt.vision.ops.box_coder(rt.to_tensor(p), var, rt.to_tensor(t), code, norm, axis)
    # Paddle's steps in its order; exp and log may differ from Paddle's in the last place
    np.testing.assert_allclose(out.numpy(), REF["coder_" + key], rtol=4e-7, atol=1e-6)


@pytest.mark.parametrize("key", sorted(PRIORS))
def test_prior_box_matches_paddle_bitwise(key):
    dt = "float64" if key.endswith("64") else "float32"
    boxes, var = rt.vision.ops.prior_box(rt.zeros([1, 3, 3, 5], dt), rt.zeros([1, 3, 17, 23], dt), **PRIORS[key])
    np.testing.assert_array_equal(boxes.numpy(), REF["prior_" + key])
    np.testing.assert_array_equal(var.numpy(), REF["prior_var_" + key])


def test_box_coder_errors():
    p, t = rt.to_tensor(PRIOR), rt.to_tensor(TGT)
    with pytest.raises(TypeError, match="prior_box_var"):
        rt.vision.ops.box_coder(p, None, t)
    with pytest.raises(ValueError, match="code_type"):
        rt.vision.ops.box_coder(p, [0.1] * 4, t, "encode")
    with pytest.raises(ValueError, match=r"\[N, M, 4\]"):
        rt.vision.ops.box_coder(p, [0.1] * 4, t, "decode_center_size")


def test_ssd_head_converted_decodes_like_eager_for_any_feature_map_size():
    import dy2st
    from runtime.static import InputSpec

    def head(feat, image, deltas):
        boxes, var = rt.vision.ops.prior_box(feat, image, [2.0, 4.0], [3.0, 6.0], [2.0], flip=True, clip=True)
        boxes, var = boxes.reshape([-1, 4]), var.reshape([-1, 4])
        return rt.vision.ops.box_coder(boxes, var, deltas, "decode_center_size", axis=0), boxes

    spec = [InputSpec([1, 3, None, None]), InputSpec([1, 3, None, None]), InputSpec([2, None, 4])]
    sf = dy2st.to_static(head, input_spec=spec)
    for h, w in ((2, 3), (3, 3)):
        args = (np.zeros((1, 3, h, w), "float32"), np.zeros((1, 3, 8 * h, 8 * w), "float32"),
                np.random.default_rng(h).standard_normal((2, h * w * 8, 4)).astype("float32") * 0.3)
        for got, want in zip(sf(*map(rt.to_tensor, args)), head(*map(rt.to_tensor, args))):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(sf.program_cache) == 1
    # box_coder's gradient, eager and converted, on its inputs
    check(lambda p, v, t: rt.vision.ops.box_coder(p, v, t, "decode_center_size", False, 1),
          (PRIOR4, VAR[:1].repeat(4, 0), DELTAS), grad=True)
    check(lambda p, v, t: rt.vision.ops.box_coder(p, v, t), (PRIOR, VAR, TGT), grad=True, ops=["log"])


# -- deform_conv2d -------------------------------------------------------------------------------------------
DCN = {"v2": (dict(), True, True, (3, 5)), "v1_strided": (dict(stride=2, padding=1), False, True, (3, 4)),
       "v2_groups": (dict(padding=(1, 2), dilation=(2, 1), deformable_groups=2, groups=2), True, False, (3, 9))}


def _dcn_inputs(i, kw, hw):
    r = np.random.default_rng(10 + i)
    dg, g = kw.get("deformable_groups", 1), kw.get("groups", 1)
    args = [r.standard_normal((2, 4, 5, 6)), r.standard_normal((2, 12 * dg) + hw) * 1.5,
            r.standard_normal((6, 4 // g, 3, 2)), r.standard_normal(6), r.uniform(0, 1, (2, 6 * dg) + hw),
            r.standard_normal((2, 6) + hw)]
    return [a.astype("float32") for a in args]


@pytest.mark.parametrize("i,key", list(enumerate(DCN)))
def test_deform_conv2d_matches_paddle_values_and_gradients(i, key):
    kw, use_mask, use_bias, hw = DCN[key]
    x, off, wt, b, mk, g = [rt.to_tensor(a, stop_gradient=False) for a in _dcn_inputs(i, kw, hw)]
    out = rt.vision.ops.deform_conv2d(x, off, wt, b if use_bias else None, mask=mk if use_mask else None, **kw)
    (out * g).sum().backward()
    np.testing.assert_allclose(out.numpy(), REF["dcn_" + key], rtol=1e-6, atol=1e-6)
    for name, t in (("x", x), ("offset", off), ("weight", wt), ("bias", b), ("mask", mk)):
        want = REF[f"dcn_{key}_grad_{name}"] if f"dcn_{key}_grad_{name}" in REF else None
        assert (t.grad is None) == (want is None), name
        if want is not None:
            np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-5, atol=3e-6, err_msg=name)


def test_deform_conv2d_layer_converted_trains_like_eager():
    from compat.helpers import train_same

    class Net(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.offsets = rt.nn.Conv2D(3, 2 * 9 + 9, 3, padding=1)
            self.dcn = rt.vision.ops.DeformConv2D(3, 4, 3, padding=1)

        def forward(self, x):
            o = self.offsets(x)
            return self.dcn(x, o[:, :18], rt.nn.functional.sigmoid(o[:, 18:])).mean()

    rng = np.random.default_rng(0)
    train_same(Net, [(rng.standard_normal((2, 3, 4, 5)).astype("float32"),) for _ in range(2)], lambda m, x: m(x))
    assert rt.vision.ops.DeformConv2D(4, 6, (3, 2), groups=2).weight.shape == [6, 2, 3, 2]
    with pytest.raises(ValueError, match="offset must have"):
        rt.vision.ops.deform_conv2d(rt.ones([1, 2, 4, 4]), rt.ones([1, 4, 2, 2]), rt.ones([3, 2, 3, 3]))


# -- matrix_nms ----------------------------------------------------------------------------------------------
MNMS = [dict(score_threshold=0.1, post_threshold=0.2, nms_top_k=6, keep_top_k=5),
        dict(score_threshold=0.05, post_threshold=0.1, nms_top_k=-1, keep_top_k=-1, use_gaussian=True,
             gaussian_sigma=3.0),
        dict(score_threshold=0.2, post_threshold=0.0, nms_top_k=4, keep_top_k=20, background_label=-1,
             normalized=False)]


def _mnms_inputs(seed, scale):
    r = np.random.default_rng(20 + seed)
    a = r.uniform(0, 0.6, (2, 8, 2))
    b = (np.concatenate([a, a + r.uniform(0.1, 0.4, (2, 8, 2))], -1) * scale).astype("float32")
    return b, r.uniform(0, 1, (2, 3, 8)).astype("float32")


@pytest.mark.parametrize("i", range(len(MNMS)))
def test_matrix_nms_matches_paddle(i):
    kw = MNMS[i]
    b, s = _mnms_inputs(i, 1.0 if kw.get("normalized", True) else 20.0)
    out, num, idx = rt.vision.ops.matrix_nms(rt.to_tensor(b), rt.to_tensor(s), return_index=True, **kw)
    # the Gaussian decay's exp may differ from Paddle's in the last place
    np.testing.assert_allclose(out.numpy(), REF[f"mnms_{i}_out"], rtol=2e-7, atol=0)
    assert num.dtype == idx.dtype == rt.int32
    np.testing.assert_array_equal(num.numpy(), REF[f"mnms_{i}_num"])
    np.testing.assert_array_equal(idx.numpy(), REF[f"mnms_{i}_index"])


def test_matrix_nms_converted_serves_any_number_of_detections():
    import dy2st
    from runtime.static import InputSpec

    def post(boxes, scores):
        out, num, _ = rt.vision.ops.matrix_nms(boxes, scores, 0.1, 0.2, 6, 5)
        return out[:, 1] * 2.0, num

    sf = dy2st.to_static(post, input_spec=[InputSpec([None, None, 4]), InputSpec([None, 3, None])])
    kept = set()
    for seed, (n, m) in enumerate(((2, 8), (1, 5), (3, 2))):
        r = np.random.default_rng(seed)
        a = r.uniform(0, 0.6, (n, m, 2))
        args = [np.concatenate([a, a + r.uniform(0.1, 0.4, (n, m, 2))], -1).astype("float32"),
                r.uniform(0, 1, (n, 3, m)).astype("float32")]
        eager = post(*map(rt.to_tensor, args))
        for got, want in zip(sf(*map(rt.to_tensor, args)), eager):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        kept.add(int(eager[1].sum()))
    assert len(kept) > 1 and len(sf.program_cache) == 1
    assert rt.vision.ops.matrix_nms(rt.to_tensor(args[0]), rt.to_tensor(args[1]), 0.1, 0.2, 6, 5,
                                    return_rois_num=False)[1:] == (None, None)


# -- distribute_fpn_proposals --------------------------------------------------------------------------------
_r = np.random.default_rng(30)
_a = _r.uniform(0, 300, (12, 2))
FPN = np.concatenate([_a, _a + _r.uniform(1, 500, (12, 2))], 1).astype("float32")
FPN[3, 2] = FPN[3, 0] - 1  # a degenerate box: area 0, the lowest level
FPN_KW = {"default": dict(min_level=2, max_level=5, refer_level=4, refer_scale=224),
          "offset": dict(min_level=3, max_level=4, refer_level=4, refer_scale=100, pixel_offset=True)}


@pytest.mark.parametrize("key", sorted(FPN_KW))
def test_distribute_fpn_proposals_matches_paddle(key):
    multi, restore, nums = rt.vision.ops.distribute_fpn_proposals(rt.to_tensor(FPN), **FPN_KW[key],
                                                                  rois_num=rt.to_tensor([5, 7], "int32"))
    np.testing.assert_array_equal(np.concatenate([m.numpy() for m in multi]), REF[f"fpn_{key}_rois"])
    np.testing.assert_array_equal(restore.numpy(), REF[f"fpn_{key}_restore"])
    np.testing.assert_array_equal(np.stack([n.numpy() for n in nums]), REF[f"fpn_{key}_nums"])
    assert restore.dtype == nums[0].dtype == rt.int32


def test_distribute_fpn_proposals_converted_then_roi_align_per_level():
    import dy2st
    from runtime.static import InputSpec

    def fpn_head(feats, rois, rois_num):
        multi, restore, nums = rt.vision.ops.distribute_fpn_proposals(rois, 2, 3, 3, 100, rois_num=rois_num)
        pooled = [rt.vision.ops.roi_align(f, r, n, 2, spatial_scale=1 / 64) for f, r, n in zip(feats, multi, nums)]
        return rt.gather(rt.concat(pooled), restore[:, 0])

    sf = dy2st.to_static(fpn_head, input_spec=[[InputSpec([2, 3, 8, 8]), InputSpec([2, 3, 4, 4])],
                                               InputSpec([None, 4]), InputSpec([2], "int32")])
    feats = [rt.to_tensor(np.random.default_rng(1).standard_normal((2, 3, s, s)).astype("float32")) for s in (8, 4)]
    for rois, num in ((FPN[:7] / 2, [3, 4]), (FPN / 2, [5, 7])):
        args = (feats, rt.to_tensor(rois), rt.to_tensor(num, "int32"))
        np.testing.assert_array_equal(sf(*args).numpy(), fpn_head(*args).numpy())
    assert len(sf.program_cache) == 1


# -- generate_proposals --------------------------------------------------------------------------------------
def _gp_inputs(seed, n=2, a=3, h=4, w=5):
    r = np.random.default_rng(40 + seed)
    sc = r.uniform(0, 1, (n, a, h, w)).astype("float32")
    dl = (r.standard_normal((n, 4 * a, h, w)) * 0.3).astype("float32")
    cy, cx = np.meshgrid(np.arange(h) * 16 + 8, np.arange(w) * 16 + 8, indexing="ij")
    sz = np.array([16, 32, 48])[:a]
    an = np.stack([cx[..., None] - sz / 2, cy[..., None] - sz / 2, cx[..., None] + sz / 2, cy[..., None] + sz / 2],
                  -1).astype("float32")
    var = np.broadcast_to(np.array([0.1, 0.1, 0.2, 0.2], "float32"), an.shape).copy()
    return sc, dl, np.array([[64, 80], [50, 70]][:n], "float32"), an, var


GP = [dict(pre_nms_top_n=30, post_nms_top_n=10, nms_thresh=0.5, min_size=2.0),
      dict(pre_nms_top_n=-1, post_nms_top_n=8, nms_thresh=0.6, min_size=0.1, eta=0.9, pixel_offset=True),
      dict(pre_nms_top_n=5, post_nms_top_n=100, nms_thresh=0.7, min_size=200.0)]  # nothing kept: a zero box


@pytest.mark.parametrize("i", range(len(GP)))
def test_generate_proposals_matches_paddle(i):
    rois, probs, num = rt.vision.ops.generate_proposals(*map(rt.to_tensor, _gp_inputs(i)), return_rois_num=True,
                                                        **GP[i])
    np.testing.assert_allclose(rois.numpy(), REF[f"gp_{i}_rois"], rtol=2e-7, atol=4e-6)  # exp: last place
    np.testing.assert_array_equal(probs.numpy(), REF[f"gp_{i}_probs"])
    np.testing.assert_array_equal(num.numpy(), REF[f"gp_{i}_num"])


def test_rpn_head_converted_proposes_then_pools():
    import dy2st
    from runtime.static import InputSpec

    def rpn(scores, deltas, im, anchors, var, feat):
        rois, probs, num = rt.vision.ops.generate_proposals(scores, deltas, im, anchors, var, 20, 6,
                                                            return_rois_num=True)
        return rt.vision.ops.roi_align(feat, rois, num, 2, spatial_scale=1 / 16) * probs.reshape([-1, 1, 1, 1]), num

    spec = [InputSpec([None, 3, 4, 5]), InputSpec([None, 12, 4, 5]), InputSpec([None, 2]), InputSpec([4, 5, 3, 4]),
            InputSpec([4, 5, 3, 4]), InputSpec([None, 2, 4, 5])]
    sf = dy2st.to_static(rpn, input_spec=spec)
    for seed, n in ((0, 2), (5, 1)):
        args = list(_gp_inputs(seed, n)) + [np.random.default_rng(seed).standard_normal((n, 2, 4, 5)).astype("float32")]
        eager = rpn(*map(rt.to_tensor, args))
        for got, want in zip(sf(*map(rt.to_tensor, args)), eager):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(sf.program_cache) == 1
