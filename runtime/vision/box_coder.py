"""paddle.vision.ops ``box_coder``: SSD / Faster R-CNN boxes as offsets from prior (anchor) boxes and
back, Paddle's formulas written with registered ops (so gradients, the static form and unknown box
counts come from them)."""
import runtime as _rt

from ..hints import TensorLike


def _corners(b):
    return [_rt.slice(b, [b.ndim - 1], [k], [k + 1]) for k in range(4)]


def _variances(prior_box_var, like):
    """The four variance factors, each broadcastable against ``like``'s [..., 1] slices."""
    if isinstance(prior_box_var, (list, tuple)):
        if len(prior_box_var) != 4:
            raise ValueError(f"box_coder: prior_box_var as a list needs 4 floats, got {prior_box_var!r}")
        return [_rt.full([1], float(v), like.dtype) for v in prior_box_var]
    if not hasattr(prior_box_var, "ndim"):
        raise TypeError("box_coder: prior_box_var must be a Tensor or a list of 4 floats (as Paddle's)")
    return _corners(prior_box_var)


def _center_size(b, one):
    x0, y0, x1, y1 = _corners(b)
    w, h = x1 - x0 + one, y1 - y0 + one
    return x0 + w * 0.5, y0 + h * 0.5, w, h


def box_coder(prior_box: TensorLike, prior_box_var: TensorLike | list | None, target_box: TensorLike,
              code_type: str = "encode_center_size", box_normalized: bool = True, axis: int = 0,
              name: str | None = None) -> TensorLike:
    """``encode_center_size``: each of the N ``target_box`` [N, 4] against each of the M ``prior_box``
    [M, 4] (x1, y1, x2, y2) as [N, M, 4] offsets (dx, dy, log dw, log dh), divided by ``prior_box_var``
    ([M, 4] or four floats; required, as Paddle's). ``decode_center_size``: ``target_box`` [N, M, 4] (``axis`` 0; [M, N, 4]
    pairs the priors with dim 0 for ``axis`` 1) of such offsets back to boxes. ``box_normalized=False``
    counts pixels inclusively (a width is x2 - x1 + 1)."""
    one = 0.0 if box_normalized else 1.0
    if code_type == "encode_center_size":
        pcx, pcy, pw, ph = (_rt.unsqueeze(_rt.reshape(v, [-1]), 0) for v in _center_size(prior_box, one))
        x0, y0, x1, y1 = _corners(target_box)  # Paddle's target centre leaves out the inclusive pixel
        tcx, tcy, tw, th = (_rt.reshape(v, [-1, 1]) for v in ((x0 + x1) * 0.5, (y0 + y1) * 0.5,
                                                               x1 - x0 + one, y1 - y0 + one))
        out = [(tcx - pcx) / pw, (tcy - pcy) / ph, _rt.log(_rt.abs(tw / pw)), _rt.log(_rt.abs(th / ph))]
        var = _variances(prior_box_var, prior_box)
        out = [o / _rt.unsqueeze(_rt.reshape(v, [-1]), 0) for o, v in zip(out, var)]
        return _rt.stack(out, axis=-1)
    if code_type != "decode_center_size":
        raise ValueError(f"box_coder: code_type must be 'encode_center_size' or 'decode_center_size', got {code_type!r}")
    if target_box.ndim != 3:
        raise ValueError(f"box_coder: decoding takes target_box [N, M, 4], got shape {list(target_box.shape)}")
    if axis not in (0, 1):
        raise ValueError(f"box_coder: axis must be 0 or 1, got {axis!r}")
    spread = 0 if axis == 0 else 1  # the priors pair with target dim 1 (axis 0) or dim 0 (axis 1)
    pcx, pcy, pw, ph = (_rt.unsqueeze(v, spread) for v in _center_size(prior_box, one))
    var = _variances(prior_box_var, prior_box)
    if not isinstance(prior_box_var, (list, tuple)):
        var = [_rt.unsqueeze(v, spread) for v in var]
    t = [a * v for a, v in zip(_corners(target_box), var)]
    cx, cy = t[0] * pw + pcx, t[1] * ph + pcy
    w, h = _rt.exp(t[2]) * pw, _rt.exp(t[3]) * ph
    return _rt.concat([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - one, cy + h * 0.5 - one], axis=-1)
