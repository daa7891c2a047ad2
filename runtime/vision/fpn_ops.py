"""paddle.vision.ops.distribute_fpn_proposals: Feature Pyramid Networks' assignment of each region
proposal to the pyramid level its size calls for, as Paddle 3.3's CPU kernel.

A box of area A goes to level floor(log2(sqrt(A) / refer_scale + 1e-6) + refer_level), clipped to
[min_level, max_level]. How many boxes each level gets depends on the data: one op returns them all
(no gradient: Paddle gives none), and a Program built with it serves any number.
"""
import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import Meta, def_op

__all__ = ["distribute_fpn_proposals"]


def _levels(rois, min_level, max_level, refer_level, refer_scale, pixel_offset):
    dt = rois.dtype.type
    w, h = rois[:, 2] - rois[:, 0], rois[:, 3] - rois[:, 1]
    if pixel_offset:
        w, h = w + dt(1), h + dt(1)
    bad = (rois[:, 2] < rois[:, 0]) | (rois[:, 3] < rois[:, 1])
    scale = np.sqrt(np.where(bad, dt(0), w * h).astype(rois.dtype))
    lvl = np.floor(np.log2(scale / dt(refer_scale) + dt(1e-6)) + dt(refer_level))
    return np.clip(lvl, min_level, max_level).astype(np.int64)


def _distribute_kernel(fpn_rois, rois_num=None, min_level=2, max_level=5, refer_level=4, refer_scale=224,
                       pixel_offset=False):
    if fpn_rois.ndim != 2 or fpn_rois.shape[1] != 4:
        raise ValueError(f"distribute_fpn_proposals: fpn_rois must be [R, 4], got {list(fpn_rois.shape)}")
    counts = np.array([len(fpn_rois)]) if rois_num is None else np.asarray(rois_num).reshape(-1).astype(np.int64)
    if counts.sum() != len(fpn_rois):
        raise ValueError(f"distribute_fpn_proposals: rois_num {counts.tolist()} does not add up to the "
                         f"{len(fpn_rois)} boxes of fpn_rois")
    image = np.repeat(np.arange(len(counts)), counts)
    lvl = _levels(fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset)
    order = np.argsort(lvl, kind="stable")  # level by level, each in the input's order (images in turn)
    restore = np.empty(len(order), np.int32)
    restore[order] = np.arange(len(order), dtype=np.int32)
    levels = range(min_level, max_level + 1)
    multi = [fpn_rois[lvl == k] for k in levels]
    per_level = [np.bincount(image[lvl == k], minlength=len(counts)).astype(np.int32) for k in levels]
    return multi + [restore.reshape(-1, 1)] + per_level


def _distribute_infer(fpn_rois, rois_num=None, min_level=2, max_level=5, **attrs):
    n = 1 if rois_num is None else rois_num.shape[0]
    levels = range(min_level, max_level + 1)
    return ([Meta([-1, 4], fpn_rois.dtype) for _ in levels] + [Meta([fpn_rois.shape[0], 1], "int32")]
            + [Meta([n], "int32") for _ in levels])


# one variadic output slot (what eager dispatch and Programs both take): the L levels' boxes, the
# restore index, then the L levels' counts per image
def_op("distribute_fpn_proposals", ["FpnRois", "RoisNum"], ["Out*"],
       attrs={"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224, "pixel_offset": False},
       kernel=_distribute_kernel, infer=_distribute_infer, no_onnx="a data-dependent split of the boxes; not lowered",
       doc="The boxes of each FPN level, the index restoring their order, and each level's boxes per image.")


def distribute_fpn_proposals(fpn_rois: TensorLike, min_level: int, max_level: int, refer_level: int,
                             refer_scale: int, pixel_offset: bool = False, rois_num: TensorLike | None = None,
                             name: str | None = None):
    """``(multi_rois, restore_ind, rois_num_per_level)``: the boxes ``fpn_rois`` [R, 4] (``rois_num`` [N]
    per image) split by FPN level from ``min_level`` to ``max_level`` (a list of [R_k, 4]); ``restore_ind``
    [R, 1] (int32) gives each box's row in their concatenation; ``rois_num_per_level`` a list of [N]
    (int32) counts, None without ``rois_num``."""
    if max_level < min_level:
        raise ValueError(f"distribute_fpn_proposals: max_level {max_level} is below min_level {min_level}")
    outs = apply("distribute_fpn_proposals", fpn_rois, rois_num, min_level=int(min_level), max_level=int(max_level),
                 refer_level=int(refer_level), refer_scale=int(refer_scale), pixel_offset=bool(pixel_offset))
    k = max_level - min_level + 1
    return list(outs[:k]), outs[k], (list(outs[k + 1:]) if rois_num is not None else None)
