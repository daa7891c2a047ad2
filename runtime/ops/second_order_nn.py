"""Gradients of the normalisation and loss gradient ops (``layer_norm_grad``, ``batch_norm_grad``,
``mse_loss_grad``, ``cross_entropy_grad``), for second derivatives (see second_order.py).

Normalisation, per group of N normalised elements: xhat = (x - mean) r, r = 1/sqrt(var + eps), and
xhat's Jacobian is the symmetric J v = r (v - M v - xhat M(xhat v)) (M: the group mean).  The first
derivative is dx = J(g s), dscale = R(g xhat), dbias = R(g) (R: the sum to the scale's shape).  With
A, B, C the gradients of dx, dscale, dbias and u = g s, differentiating <A, J u> through r and xhat:
  d/dg = s J A + xhat B + C,  d/dscale = R(g J A),
  d/dx = J(g B) - r^2 xhat (M(A (u - M u)) - M(A xhat) M(xhat u)) - r M(xhat u) J A - r M(A xhat) J u.
Mean and InvStd (inputs of the grad op, outputs of the forward op) get None: the rule differentiates
through x directly.  A third derivative differentiates this rule's use of them: the forward ops'
rules take those gradients (``stats_grad``).
"""
import numpy as np

from ..dispatch import apply


def _mul(*vs):
    out = vs[0]
    for v in vs[1:]:
        out = apply("multiply", out, v)
    return out


def _add(a, b):
    return b if a is None else a if b is None else apply("add", a, b)


def _norm_grads(x, s_b, mean, inv, g, A, B_b, C_b, axes, reduce_scale):
    """(d/dx, d/dscale, d/dg) of the training-mode normalisation gradient (module docstring)."""
    def M(v):
        return apply("reduce_mean", v, axis=list(axes), keepdim=True)

    xhat = _mul(apply("subtract", x, mean), inv)

    def J(v):
        return _mul(inv, apply("subtract", apply("subtract", v, M(v)), _mul(xhat, M(_mul(xhat, v)))))

    u = _mul(g, s_b)
    d_x = d_s = d_g = None
    if A is not None:
        JA = J(A)
        d_g = _mul(JA, s_b)
        d_s = reduce_scale(_mul(JA, g))
        m_u, pbar = M(_mul(xhat, u)), M(_mul(A, xhat))
        sa = M(_mul(A, apply("subtract", u, M(u))))
        spread = _mul(apply("square", inv), xhat, apply("subtract", sa, _mul(pbar, m_u)))
        d_x = apply("add", apply("add", spread, _mul(inv, m_u, JA)), _mul(inv, pbar, J(u)))
        d_x = apply("scale", d_x, scale=-1.0)
    if B_b is not None:
        d_g = _add(d_g, _mul(B_b, xhat))
        d_x = _add(d_x, J(_mul(B_b, g)))
    if C_b is not None:
        d_g = _add(d_g, apply("expand_as", C_b, g))
    return d_x, d_s, d_g


def stats_grad(x, mean, inv, gm, gi, axes, dx=None):
    """``dx`` plus the gradient through the normalisation's group statistics: d mean / dx = 1/N and
    d r / dx = -r^2 xhat / N.  Only a derivative of a normalisation gradient reads them."""
    parts = []
    if gm is not None:
        parts.append(apply("expand_as", gm, x))
    if gi is not None:
        xhat = _mul(apply("subtract", x, mean), inv)
        parts.append(apply("scale", _mul(gi, apply("square", inv), xhat), scale=-1.0))
    total = parts[0] if len(parts) == 1 else apply("add", *parts)
    count = apply("reduce_sum", apply("fill_any_like", x, value=1.0, dtype=str(x.dtype)), axis=list(axes),
                  keepdim=True)
    return _add(dx, apply("divide", total, count))


def layer_norm_grad_grad(ctx):
    """Of layer_norm_grad (module docstring), groups over the axes from begin_norm_axis on."""
    x, scale, mean, inv, g = ctx.inputs
    A, B, C = ctx.out_grads
    begin = ctx.attrs["begin_norm_axis"]
    nd = len(x.shape)
    norm = list(x.shape[begin:])
    # the scale may be given flat ([prod(norm)]): reshaped as the kernel does (unknown dims: as is)
    shaped = (lambda v: v) if -1 in norm or list(scale.shape) == norm else \
        (lambda v: apply("reshape", v, shape=norm))
    lead = list(range(begin))

    def reduce_scale(v):
        r = apply("reduce_sum", v, axis=lead, keepdim=False) if lead else v
        return r if list(r.shape) == list(scale.shape) else apply("reshape", r, shape=list(scale.shape))
    d_x, d_s, d_g = _norm_grads(x, shaped(scale), mean, inv, g, A, None if B is None else shaped(B),
                                None if C is None else shaped(C), range(begin, nd), reduce_scale)
    return [d_x, d_s, None, None, d_g]


def batch_norm_grad_grad(ctx):
    """Of batch_norm_grad (module docstring), groups over all axes but the channel one; with running
    statistics (is_test, use_global_stats) the gradient is linear in g and only dscale depends on x."""
    from .nn_norm import _bshape, _channel_axis, _use_batch_stats
    x, scale, mean, inv, g = ctx.inputs
    A, B, C = ctx.out_grads
    nd = len(x.shape)
    ca = _channel_axis(nd, ctx.attrs["data_layout"])
    bs = _bshape(nd, ca)
    axes = [i for i in range(nd) if i != ca]

    def chan(v):
        return None if v is None else apply("reshape", v, shape=bs)

    def reduce_scale(v):
        return apply("reduce_sum", v, axis=axes, keepdim=False)
    s_b, m_b, r_b = chan(scale), chan(mean), chan(inv)
    if _use_batch_stats(ctx.attrs["is_test"], ctx.attrs["use_global_stats"]):
        d_x, d_s, d_g = _norm_grads(x, s_b, m_b, r_b, g, A, chan(B), chan(C), axes, reduce_scale)
        return [d_x, d_s, None, None, d_g]
    # running statistics: dx = g s r is linear, and only dscale = R(g xhat) depends on x
    xhat = _mul(apply("subtract", x, m_b), r_b)
    d_x = d_s = d_g = None
    if A is not None:
        d_g = _mul(A, s_b, r_b)
        d_s = reduce_scale(_mul(A, g, r_b))
    if B is not None:
        d_g = _add(d_g, _mul(chan(B), xhat))
        d_x = _mul(chan(B), g, r_b)
    if C is not None:
        d_g = _add(d_g, apply("expand_as", chan(C), g))
    return [d_x, d_s, None, None, d_g]


def _count(like):
    """The number of elements of ``like`` as a 0-d tensor of its dtype (static shapes may be unknown)."""
    return apply("reduce_sum", apply("fill_any_like", like, value=1.0, dtype=str(like.dtype)))


def mse_loss_grad_grad(ctx):
    """Of gx = s g (x - y), gy = -gx (s = 2, or 2/N for 'mean'): with D = A - B the gradients of gx
    minus gy's, ``s g D`` for x, ``-s g D`` for y and ``s (x - y) D`` (summed when g is a scalar)."""
    x, y, g = ctx.inputs
    A, B = ctx.out_grads
    red = ctx.attrs["reduction"]
    D = A if B is None else apply("scale", B, scale=-1.0) if A is None else apply("subtract", A, B)
    diff = _mul(apply("subtract", x, y), D)
    if red == "none":
        sg, d_g = apply("scale", g, scale=2.0), apply("scale", diff, scale=2.0)
    elif red == "sum":
        sg, d_g = apply("scale", g, scale=2.0), apply("scale", apply("reduce_sum", diff), scale=2.0)
    else:
        sg = apply("divide", apply("scale", g, scale=2.0), _count(x))
        d_g = apply("scale", apply("reduce_mean", diff), scale=2.0)
    d_x = _mul(D, sg)
    return [d_x, apply("scale", d_x, scale=-1.0), d_g]


def cross_entropy_grad_grad(ctx):
    """dx = c p - gs t per row (p = softmax(x), t the one-hot or soft target, gs the row's share of
    g, c = gs sum(t), or gs for a kept hard label and 0 for an ignored one): ``softmax_grad(p, c A)``
    for x; dx is linear in g, so ``sum(A dx(g = 1))`` over the class axis (all of it for a scalar g)
    for g.  Without softmax dx = -gs t / x: ``-A dx / x``.  The label gets none, as at first order
    (Paddle's cross_entropy gives a soft label no gradient either)."""
    x, label, g = ctx.inputs
    A = ctx.out_grads[0]
    a = ctx.attrs
    soft, red, use_softmax = a["soft_label"], a["reduction"], a["use_softmax"]
    axis = a["axis"] % len(x.shape)
    keep = soft or len(label.shape) == len(x.shape)

    def rows(v):  # a per-sample value with the class axis kept (size 1)
        return v if keep else apply("unsqueeze", v, axis=[axis])

    def rowsum(v):
        return apply("reduce_sum", v, axis=[axis], keepdim=True)
    ones = apply("fill_any_like", g, value=1.0, dtype=str(g.dtype))
    d1 = apply("cross_entropy_grad", x, label, ones, **a)
    d_g = _mul(A, d1)
    if red == "none":
        d_g = rowsum(d_g) if keep else apply("reduce_sum", d_g, axis=[axis], keepdim=False)
    else:
        d_g = apply("reduce_sum", d_g)
    gs = rows(g) if red == "none" else g
    if soft:
        weight = rowsum(label)
        if red == "mean":
            gs = apply("divide", gs, _count(weight))
    else:
        lab = rows(label)
        valid = apply("cast", apply("not_equal", lab, apply("fill_any_like", lab, value=a["ignore_index"],
                                                            dtype=str(lab.dtype))), dtype=str(x.dtype))
        weight = valid
        if red == "mean" and a["ignore_index"] < 0:  # Paddle's mean counts every label then
            gs = apply("divide", gs, _count(valid))
        elif red == "mean":
            n = apply("maximum", apply("reduce_sum", valid), apply("fill_any_like", g, value=1.0, dtype=str(g.dtype)))
            gs = apply("divide", gs, n)
    if use_softmax:
        p = apply("softmax", x, axis=axis)
        d_x = apply("softmax_grad", p, _mul(A, gs, weight), axis=axis)
    else:
        tiny = apply("fill_any_like", x, value=float(np.finfo(str(x.dtype)).tiny), dtype=str(x.dtype))
        safe = apply("maximum", x, tiny)
        d_x = apply("scale", apply("divide", _mul(A, ctx.outputs[0]), safe), scale=-1.0)
        d_x = apply("where", apply("greater_than", x, tiny), d_x, apply("fill_any_like", d_x, value=0.0))
    return [d_x, None, d_g]
