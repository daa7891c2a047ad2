"""Gradients of gradient ops (second derivatives: ``rt.grad(..., create_graph=True)`` differentiated
again), for the activations, elementwise ops and index/pool ops whose gradient is an ``*_grad`` op.

Each rule gets the grad op's inputs (the forward input or output, then OutGrad) and the gradient of
the grad op's output, and returns one gradient per input, built from registered ops so that it works
eagerly and in Programs and can itself be differentiated.  An input the grad op only reads as a mask
or a shape (relu's output, clip's input, dropout's mask, an index) gets None: the first derivative is
piecewise constant there, and a zero would cost a whole backward pass of zeros through the network.
Gradient ops that are linear in OutGrad have as OutGrad-gradient the forward op applied again
(``tile_grad`` -> ``tile``, ``avg_pool2d_grad`` -> ``avg_pool2d``...).
"""
import math

from ..dispatch import apply


def _gg(ctx):
    return ctx.out_grads[0]


def relu_grad_grad(ctx):
    """Of ``g * (out > 0)``: the same mask on the incoming gradient; nothing for out."""
    return [None, apply("relu_grad", ctx.inputs[0], _gg(ctx))]


def clip_grad_grad(ctx):
    """Of ``g * inside(x)``: the same mask on the incoming gradient; nothing for x."""
    return [None, apply("clip_grad", ctx.inputs[0], _gg(ctx), **ctx.attrs)]


def dropout_grad_grad(ctx):
    """Of ``g * mask * scale``: the same on the incoming gradient; nothing for the mask."""
    return [None, apply("dropout_grad", ctx.inputs[0], _gg(ctx), **ctx.attrs)]


def sqrt_grad_grad(ctx):
    """Of ``g / (2 out)``: ``-g G / (2 out^2)`` for out, ``G / (2 out)`` for g."""
    out, g, gg = ctx.inputs[0], ctx.inputs[1], _gg(ctx)
    d_out = apply("scale", apply("divide", apply("multiply", g, gg), apply("square", out)), scale=-0.5)
    return [d_out, apply("sqrt_grad", out, gg)]


def rsqrt_grad_grad(ctx):
    """Of ``-g out^3 / 2``: ``-3/2 g out^2 G`` for out, ``-G out^3 / 2`` for g."""
    out, g, gg = ctx.inputs[0], ctx.inputs[1], _gg(ctx)
    d_out = apply("scale", apply("multiply", apply("multiply", g, gg), apply("square", out)), scale=-1.5)
    return [d_out, apply("rsqrt_grad", out, gg)]


_INV_SQRT_2PI = 1.0 / math.sqrt(2 * math.pi)
_SQRT_2_PI = math.sqrt(2 / math.pi)
_C = 0.044715


def _gelu_second(x, approximate):
    """gelu''(x), of ops.  Exact: phi(x) (2 - x^2).  Tanh form, with u = k (x + c x^3) and t = tanh(u):
    (1 - t^2) (u' - x t u'^2 + 3 k c x^2), u' = k (1 + 3 c x^2)."""
    x2 = apply("square", x)
    if not approximate:
        phi = apply("scale", apply("exp", apply("scale", x2, scale=-0.5)), scale=_INV_SQRT_2PI)
        return apply("multiply", phi, apply("scale", x2, scale=-1.0, bias=2.0))
    u = apply("scale", apply("add", x, apply("scale", apply("multiply", x2, x), scale=_C)), scale=_SQRT_2_PI)
    t = apply("tanh", u)
    du = apply("scale", x2, scale=3 * _C * _SQRT_2_PI, bias=_SQRT_2_PI)
    inner = apply("subtract", du, apply("multiply", apply("multiply", x, t), apply("square", du)))
    inner = apply("add", inner, apply("scale", x2, scale=3 * _SQRT_2_PI * _C))
    return apply("multiply", apply("scale", apply("square", t), scale=-1.0, bias=1.0), inner)


def gelu_grad_grad(ctx):
    """Of ``g gelu'(x)``: ``g G gelu''(x)`` for x, ``G gelu'(x)`` for g."""
    x, g, gg = ctx.inputs[0], ctx.inputs[1], _gg(ctx)
    d_x = apply("multiply", apply("multiply", g, gg), _gelu_second(x, ctx.attrs["approximate"]))
    return [d_x, apply("gelu_grad", x, gg, **ctx.attrs)]


def _rowsum(v, axis):
    return apply("reduce_sum", v, axis=[axis], keepdim=True)


def softmax_grad_grad(ctx):
    """Of ``out (g - sum(g out))``: ``G (g - sum(g out)) - g sum(G out)`` for out; for g the same
    map on G (it is symmetric), i.e. ``softmax_grad(out, G)``."""
    out, g, gg, axis = ctx.inputs[0], ctx.inputs[1], _gg(ctx), ctx.attrs["axis"]
    centred = apply("subtract", g, _rowsum(apply("multiply", g, out), axis))
    d_out = apply("subtract", apply("multiply", gg, centred),
                  apply("multiply", g, _rowsum(apply("multiply", gg, out), axis)))
    return [d_out, apply("softmax_grad", out, gg, axis=axis)]


def log_softmax_grad_grad(ctx):
    """Of ``g - exp(out) sum(g)``: ``-exp(out) G sum(g)`` for out, ``G - sum(G exp(out))`` for g."""
    out, g, gg, axis = ctx.inputs[0], ctx.inputs[1], _gg(ctx), ctx.attrs["axis"]
    p = apply("exp", out)
    d_out = apply("scale", apply("multiply", apply("multiply", p, gg), _rowsum(g, axis)), scale=-1.0)
    return [d_out, apply("subtract", gg, _rowsum(apply("multiply", gg, p), axis))]


def tile_grad_grad(ctx):
    """tile_grad sums the tiles of g: its adjoint tiles G again.  The repeat counts come from the
    attrs, or (given as tensors) from the static shapes; unknown both ways is a clear error."""
    x, g = ctx.inputs
    reps = list(ctx.attrs["repeat_times"])
    if any(r is None for r in reps):
        xs = (1,) * (len(g.shape) - len(x.shape)) + tuple(x.shape)
        if any(d < 0 for d in tuple(xs) + tuple(g.shape)):
            raise NotImplementedError("the second derivative of tile with tensor repeat_times needs the "
                                      "input's and output's shapes known when the Program is built")
        reps = [gd // xd if xd else 1 for gd, xd in zip(g.shape, xs)]
    return [None, apply("tile", _gg(ctx), repeat_times=reps)]


def diagonal_grad_grad(ctx):
    """diagonal_grad writes g on a diagonal of zeros: its adjoint reads that diagonal of G."""
    return [None, apply("diagonal", _gg(ctx), **ctx.attrs)]


def embedding_grad_grad(ctx):
    """embedding_grad scatter-adds rows of g at ids (padding rows dropped): its adjoint is the lookup."""
    ids = ctx.inputs[0]
    return [None, apply("embedding", ids, _gg(ctx), padding_idx=ctx.attrs["padding_idx"]), None]


def avg_pool_grad_grad(nd):
    """avg_pool's gradient spreads g over each window, the transpose of the (linear) pool: G pooled again."""
    def rule(ctx):
        return [None, apply(f"avg_pool{nd}d", _gg(ctx), **ctx.attrs)]
    return rule


def max_pool_grad_grad(nd):
    """max_pool's gradient puts g at each window's first maximum (the with_index op's mask, same tie
    rule): its adjoint gathers G there.  A ceil_mode window wholly in the padding (mask -1) gets 0."""
    def rule(ctx):
        x, gg = ctx.inputs[0], _gg(ctx)
        attrs = {k: v for k, v in ctx.attrs.items() if k != "exclusive"}
        mask = apply(f"max_pool{nd}d_with_index", x, **attrs)[1]
        picked = apply("unpool_grad", mask, gg) if not attrs["ceil_mode"] else \
            _masked_pick(mask, gg)
        return [None, picked]
    return rule


def _masked_pick(mask, gg):
    safe = apply("maximum", mask, apply("fill_any_like", mask, value=0, dtype="int32"))
    picked = apply("unpool_grad", safe, gg)
    empty = apply("less_than", mask, apply("fill_any_like", mask, value=0, dtype="int32"))
    return apply("where", empty, apply("fill_any_like", picked, value=0.0, dtype=str(picked.dtype)), picked)


def unpool_grad_grad(ctx):
    """unpool_grad gathers g at the indices: its adjoint writes G back there (unpool, to g's size)."""
    indices, g = ctx.inputs
    size = list(g.shape[2:])
    if any(d < 0 for d in size):
        raise NotImplementedError("the second derivative of max_unpool needs its output size known when "
                                  "the Program is built")
    return [None, apply("unpool", _gg(ctx), indices, output_size=size)]


def conv_grad_input_grad(nd):
    """conv_grad_input(g, w, x) = conv's transpose applied to g, bilinear in (g, w): for g the conv of G
    with w, for w the filter gradient of a conv of G seen with output gradient g; x is only a shape."""
    def rule(ctx):
        g, w, x = ctx.inputs
        gg = _gg(ctx)
        return [apply(f"conv{nd}d", gg, w, **ctx.attrs), apply(f"conv{nd}d_grad_filter", gg, g, w, **ctx.attrs), None]
    return rule


def conv_grad_filter_grad(nd):
    """conv_grad_filter(x, g, w): <G, dW> = <conv(x, G), g>, so x gets conv_grad_input(g, G) and g gets
    conv(x, G); w is only a shape."""
    def rule(ctx):
        x, g, w = ctx.inputs
        gg = _gg(ctx)
        return [apply(f"conv{nd}d_grad_input", g, gg, x, **ctx.attrs), apply(f"conv{nd}d", x, gg, **ctx.attrs), None]
    return rule


def max_pool_with_index_grad_grad(ctx):
    """max_pool*_with_index's gradient adds g at the mask's indices: its adjoint gathers G there."""
    return [None, None, _masked_pick(ctx.inputs[1], _gg(ctx))]


def array_read_grad_grad(ctx):
    """array_read_grad puts g at row I of zeros: its adjoint reads row I of G."""
    return [None, apply("array_read", _gg(ctx), ctx.inputs[2]), None]


def array_write_grad_grad(ctx):
    """array_write_grad is g's first rows with row I zeroed: its adjoint is G with row I written as zeros
    (appended when I is the old length), which is g's shape again."""
    g, i = ctx.inputs[1], ctx.inputs[2]
    zero = apply("fill_any_like", apply("array_read", g, i), value=0.0, dtype=str(g.dtype))
    return [None, apply("array_write", _gg(ctx), zero, i), None]


def logcumsumexp_grad_grad(ctx):
    """Of dx_j = sum_{i >= j} g_i exp(x_j - out_i) (x, out, g taken apart): ``G dx`` for x, ``-g (W G)``
    for out and ``W G`` for g, with (W G)_i = sum_{j <= i} G_j exp(x_j - out_i).  Reversed along the axis
    that sum has logcumsumexp_grad's form with -out and -x swapped, so it reuses its overflow-free kernel."""
    from .linalg import flip  # linalg loads after this module
    x, out, g = ctx.inputs
    gg, axis = _gg(ctx), ctx.attrs["axis"]

    def rev(v):
        return flip(v, [axis])
    wg = rev(apply("logcumsumexp_grad", apply("scale", rev(out), scale=-1.0), apply("scale", rev(x), scale=-1.0),
                   rev(gg), axis=axis))
    d_out = apply("scale", apply("multiply", g, wg), scale=-1.0)
    return [apply("multiply", gg, ctx.outputs[0]), d_out, wg]
