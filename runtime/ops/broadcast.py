"""Broadcasting shape ops: expand and tile, whose target may hold run-time (tensor) dims.

``rt.expand(h0, [x.shape[0], -1])`` under an unknown batch size gives
``expand(X=h0, ShapeTensor=[b]) shape=[None, -1]``: -1 keeps the input dim, None is read from
the tensor when the Program runs (see ``shape_args``).
"""
import numpy as np

from ..dispatch import apply
from . import second_order
from ..registry import GRAD_ONLY, Meta, def_op
from .common import reduce_as
from .shape_args import fill_dims, no_grads, show, split_shape, tensor_input
from ..hints import ShapeLike, TensorLike


def _expand_shape(in_shape, shape):
    n = len(shape)
    if n < len(in_shape):
        raise ValueError(f"expand: target shape {show(shape)} has fewer dims than the input shape {list(in_shape)}")
    padded = (1,) * (n - len(in_shape)) + tuple(in_shape)
    out = []
    for k, (d, t) in enumerate(zip(padded, shape)):
        if t == -1 and k < n - len(in_shape):  # Paddle refuses it too: there is no input dim to keep
            raise ValueError(f"expand: -1 in target shape {show(shape)} at new dim {k} (not in the input "
                             f"shape {list(in_shape)}); give its size")
        if t is None:  # a run-time value: it must match a known dim other than 1
            out.append(d if d not in (1, -1) else -1)
        elif t == -1:
            out.append(d)
        elif d in (1, -1) or d == t:
            out.append(t)
        else:
            raise ValueError(f"expand: cannot broadcast shape {list(in_shape)} to {show(shape)} "
                             f"(dim {d} is not 1 and differs from {t})")
    return tuple(out)


def _expand_kernel(x, shape_tensors=None, shape=()):
    return np.broadcast_to(x, _expand_shape(x.shape, fill_dims(shape, shape_tensors, "expand"))).copy()


def _tile_shape(in_shape, reps):
    n = max(len(in_shape), len(reps))
    s = (1,) * (n - len(in_shape)) + tuple(in_shape)
    r = (1,) * (n - len(reps)) + tuple(reps)
    return tuple(-1 if d == -1 or k is None else d * k for d, k in zip(s, r))


def _tile_kernel(x, repeat_tensors=None, repeat_times=()):
    return np.tile(x, fill_dims(repeat_times, repeat_tensors, "tile"))


def _tile_grad_kernel(x, g, repeat_times=()):
    """Sum the tiles of g; the repeat counts come from the run-time shapes (they may be tensors)."""
    n = g.ndim
    s = (1,) * (n - x.ndim) + x.shape
    r = [gd // sd if sd else 1 for gd, sd in zip(g.shape, s)]
    inter = [v for pair in zip(r, s) for v in pair]
    return g.reshape(inter).sum(axis=tuple(range(0, 2 * n, 2))).reshape(x.shape)


def_op("expand", ["X", "ShapeTensor*"], ["Out"], attrs={"shape": []}, kernel=_expand_kernel,
       infer=lambda x, st=None, shape=(): Meta(_expand_shape(x.shape, shape), x.dtype),
       grad=lambda ctx: [reduce_as(ctx.out_grads[0], ctx.inputs[0]), no_grads(ctx.inputs, 1)],
       onnx="expand", api=["expand", "broadcast_to"], methods=["expand", "broadcast_to"], grad_reads_no_values=True,
       doc="Broadcast X to shape; -1 keeps the input dim, None dims are the values of ShapeTensor.")
def_op("tile", ["X", "RepeatTensor*"], ["Out"], attrs={"repeat_times": []}, kernel=_tile_kernel,
       infer=lambda x, rt_=None, repeat_times=(): Meta(_tile_shape(x.shape, repeat_times), x.dtype),
       grad=lambda ctx: [apply("tile_grad", ctx.inputs[0], ctx.out_grads[0], **ctx.attrs), no_grads(ctx.inputs, 1)],
       onnx="tile", api=["tile"], methods=["tile"],
       doc="np.tile; None entries of repeat_times are the values of RepeatTensor.")
def_op("tile_grad", ["X", "OutGrad"], ["XGrad"], attrs={"repeat_times": []}, kernel=_tile_grad_kernel,
       infer=lambda x, g, repeat_times=(): Meta(x.shape, g.dtype), no_onnx=GRAD_ONLY,
       grad=second_order.tile_grad_grad)


# -- public ---------------------------------------------------------------------------------------------
def expand(x: TensorLike, shape: ShapeLike, name: str | None = None) -> TensorLike:
    """``shape`` as in ``reshape``; -1 keeps the input dim."""
    dims, tensors = split_shape(shape, "expand", like=x)
    return apply("expand", x, *tensor_input(tensors), shape=dims)


broadcast_to = expand


def expand_as(x: TensorLike, y: TensorLike, name: str | None = None) -> TensorLike:
    """Broadcast ``x`` to the shape of ``y``."""
    return apply("expand_as", x, y)


def tile(x: TensorLike, repeat_times: ShapeLike, name: str | None = None) -> TensorLike:
    """Repeat ``x`` ``repeat_times[i]`` times along dim i; ``repeat_times`` may hold 1-element int Tensors."""
    dims, tensors = split_shape(repeat_times, "tile", "repeat_times", like=x)
    return apply("tile", x, *tensor_input(tensors), repeat_times=dims)
