"""Registry rows (see op_cases.py) for paddle.vision.ops' detection functions: RoI pooling, box coding,
prior boxes, deformable convolution, matrix NMS. Their values are checked against Paddle 3.3 in
tests/runtime/test_vision_detection_ops.py; these rows run the registry's four checks (kernel against
infer, static against eager, gradients against finite differences)."""
import numpy as np

from op_cases import D, F, P, case

_BOXES = np.array([[0.5, 1.2, 4.3, 3.1], [1, 0, 3, 2.5], [-0.7, 0.3, 5.6, 4.9]], np.float32)
_NUM = np.array([1, 2], np.int32)
_ROI = dict(pooled_height=2, pooled_width=2, spatial_scale=0.9)


def _argmax():
    """roi_pool's Argmax for D(2, 2, 5, 6) values and the boxes above."""
    from runtime.vision.roi_ops import _roi_pool_kernel
    return _roi_pool_kernel(D(2, 2, 5, 6), _BOXES, _NUM, **_ROI)[1]


def _encode(prior, var, target, code_type):
    """box_coder's encoding with normalized boxes, from Paddle's formula."""
    pw, ph = prior[:, 2] - prior[:, 0], prior[:, 3] - prior[:, 1]
    pcx, pcy = prior[:, 0] + pw / 2, prior[:, 1] + ph / 2
    t = target[:, None]
    tw, th = t[..., 2] - t[..., 0], t[..., 3] - t[..., 1]
    out = np.stack([((t[..., 2] + t[..., 0]) / 2 - pcx) / pw, ((t[..., 3] + t[..., 1]) / 2 - pcy) / ph,
                    np.log(np.abs(tw / pw)), np.log(np.abs(th / ph))], -1)
    return out / var


def _bilinear(img, y, x):
    """Paddle's deformable-conv sampling of img [H, W] at (y, x): 0 beyond (-1, size), corners outside 0."""
    h, w = img.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    out = 0.0
    for yi, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xi, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yi < h and 0 <= xi < w:
                out += wy * wx * img[yi, xi]
    return out


def _deform_conv(x, offset, weight, bias, mask, padding):
    """deform_conv2d (stride 1, one group) one output at a time."""
    n, c, h, w = x.shape
    co, _, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    out = np.zeros((n, co, ho, wo))
    for b, i, j in np.ndindex(n, ho, wo):
        col = np.zeros((c, kh * kw))
        for k in range(kh * kw):
            y = i - padding + k // kw + offset[b, 2 * k, i, j]
            xx = j - padding + k % kw + offset[b, 2 * k + 1, i, j]
            col[:, k] = [_bilinear(x[b, ch], y, xx) * mask[b, k, i, j] for ch in range(c)]
        out[b, :, i, j] = weight.reshape(co, -1) @ col.reshape(-1) + bias
    return out


_PRIORS = np.array([[0, 0, 2, 3], [1, 1, 4, 2], [2, 0, 5, 5]], np.float32)
_TARGETS = np.array([[0.5, 0, 3, 2], [1, 2, 2, 6]], np.float32)


_MN_CORNERS = np.random.default_rng(0).uniform(0, 0.6, (2, 5, 2)).astype(np.float32)


def _gp_inputs():
    """generate_proposals' inputs: 2 images, 2 anchors on a 2 x 3 grid of stride 16."""
    r = np.random.default_rng(1)
    cy, cx = np.meshgrid(np.arange(2) * 16 + 8, np.arange(3) * 16 + 8, indexing="ij")
    sz = np.array([16, 32])
    an = np.stack([cx[..., None] - sz / 2, cy[..., None] - sz / 2, cx[..., None] + sz / 2, cy[..., None] + sz / 2],
                  -1).astype(np.float32)
    return (r.uniform(0, 1, (2, 2, 2, 3)).astype(np.float32), (r.standard_normal((2, 8, 2, 3)) * 0.3).astype(np.float32),
            np.array([[32, 48], [30, 40]], np.float32), an, np.full(an.shape, 0.2, np.float32))


def rows():
    cases = {
        # (two channels, four for psroi_pool: the finite differences go over every input entry)
        "roi_align": case(F(2, 2, 5, 6), _BOXES, _NUM, pooled_height=2, pooled_width=3, sampling_ratio=2, grad=[0]),
        "roi_align_grad": case(F(2, 2, 5, 6), _BOXES, _NUM, F(3, 2, 2, 2), pooled_height=2, pooled_width=2),
        "roi_pool": case(D(2, 2, 5, 6), _BOXES, _NUM, grad=[0], grad_outs=[0], **_ROI),
        "roi_pool_grad": case(F(2, 2, 5, 6), _argmax(), F(3, 2, 2, 2)),
        "psroi_pool": case(F(2, 4, 5, 6), _BOXES, _NUM, grad=[0], **_ROI),
        "psroi_pool_grad": case(F(2, 4, 5, 6), _BOXES, _NUM, F(3, 1, 2, 2), **_ROI),
        "prior_box": case(F(1, 3, 3, 5), F(1, 3, 17, 23), min_sizes=(2.0, 4.0), max_sizes=(3.0, 6.0),
                          aspect_ratios=(2.0,), flip=True, clip=True, grad=False),
        # two images of 5 boxes, 3 classes: the kept rows depend on the data
        "matrix_nms": case(np.concatenate([_MN_CORNERS, _MN_CORNERS + 0.3], -1), P(2, 3, 5) / 2, score_threshold=0.3,
                           post_threshold=0.2, nms_top_k=4, keep_top_k=6, shape_known=False, grad=False),
        "distribute_fpn_proposals": case(_BOXES * 60, _NUM, min_level=2, max_level=4, refer_level=3, refer_scale=100,
                                         shape_known=False, grad=False),
        "generate_proposals": case(*_gp_inputs(), pre_nms_top_n=10, post_nms_top_n=4, shape_known=False, grad=False),
    }
    composites = {
        # offsets of +-1.5 reach outside the input; random values keep every sample off integer points
        # (v1: the row passes tensors positionally; v2's mask is checked against Paddle in the test file)
        "deform_conv2d": case(F(1, 2, 3, 4), F(1, 8, 3, 4) * 1.5, F(3, 2, 2, 2), F(3), padding=1, tol=1e-5,
                              ref=lambda x, o, wt, b, padding: _deform_conv(x, o, wt, b, np.ones((1, 4, 3, 4)), padding)),
        "box_coder": case(_PRIORS, P(3, 4), _TARGETS, code_type="encode_center_size", ref=_encode, grad=[0, 1, 2]),
    }
    return cases, composites
