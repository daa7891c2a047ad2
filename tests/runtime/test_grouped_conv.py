"""Grouped and depthwise convolutions (one batched matmul over the groups): conv1d/2d/3d against a direct
numpy sum over kernel positions, gradients against central finite differences, converted against eager."""
import itertools

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F

_FN = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _direct(x, w, s, p, d, groups):
    """out[n, o, *i] = sum over c in o's group and kernel positions of x_pad[n, c, i * s + k * d] w[o, c, k]."""
    nd = x.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + ((p, p),) * nd)
    k = w.shape[2:]
    out = [(xp.shape[2 + i] - d * (k[i] - 1) - 1) // s + 1 for i in range(nd)]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    res = np.zeros((x.shape[0], w.shape[0], *out))
    for o in range(w.shape[0]):
        g = o // og
        for pos in itertools.product(*(range(kk) for kk in k)):
            sl = tuple(slice(pos[i] * d, pos[i] * d + s * (out[i] - 1) + 1, s) for i in range(nd))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            res[:, o] += np.einsum("nc...,c->n...", patch, w[(o, slice(None)) + pos])
    return res


CASES = [(1, 4, 1, 1), (2, 6, 1, 1), (2, 3, 1, 2), (2, 2, 2, 3), (3, 2, 1, 1)]  # (nd, groups, C/G, out per group)


@pytest.mark.parametrize("nd,groups,cg,og", CASES)
@pytest.mark.parametrize("s,p,d", [(1, 1, 1), (2, 0, 2)])
def test_grouped_conv_values_gradients_and_converted(nd, groups, cg, og, s, p, d):
    rng = np.random.default_rng(nd * 10 + groups)
    spatial = {1: (9,), 2: (7, 6), 3: (5, 4, 5)}[nd]
    x = rng.standard_normal((2, groups * cg) + spatial)
    k = (3,) * nd if nd < 3 else (2, 2, 2)
    w = rng.standard_normal((groups * og, cg) + k)
    kw = dict(stride=s, padding=p, dilation=d, groups=groups)
    fn = _FN[nd]
    want = _direct(x, w, s, p, d, groups)
    got = fn(rt.to_tensor(x.astype("float32")), rt.to_tensor(w.astype("float32")), **kw).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    # float64 gradients of sum(out * c) against finite differences of the direct sum
    c = rng.standard_normal(want.shape)
    xt, wt = rt.to_tensor(x, stop_gradient=False), rt.to_tensor(w, stop_gradient=False)
    (fn(xt, wt, **kw) * rt.to_tensor(c)).sum().backward()
    for arr, grad, which in ((x, xt.grad.numpy(), 0), (w, wt.grad.numpy(), 1)):
        for idx in [tuple(int(rng.integers(0, n)) for n in arr.shape) for _ in range(4)]:
            e = np.zeros_like(arr)
            e[idx] = 1e-6
            args = [(x + e, w), (x - e, w)] if which == 0 else [(x, w + e), (x, w - e)]
            fd = ((_direct(*args[0], s, p, d, groups) - _direct(*args[1], s, p, d, groups)) * c).sum() / 2e-6
            assert abs(grad[idx] - fd) < 1e-5 * max(1.0, abs(fd))

    converted = dy2st.to_static(lambda a, b: fn(a, b, **kw))
    for scale in (1.0, -0.5):
        xs = rt.to_tensor((x * scale).astype("float32"))
        np.testing.assert_array_equal(converted(xs, rt.to_tensor(w.astype("float32"))).numpy(),
                                      fn(xs, rt.to_tensor(w.astype("float32")), **kw).numpy())
