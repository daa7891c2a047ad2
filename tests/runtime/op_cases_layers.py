"""Registry rows (see op_cases.py) for ``conv3d_transpose`` (runtime/ops/nn_conv_transpose.py), the
pools with a mask and max unpooling (nn_pool_index.py) and ``bilinear`` (nn_bilinear.py).  The references
are plain numpy loops written from Paddle's definitions (the ops themselves are checked against
Paddle 3.3 in tests/runtime/test_layers_*.py)."""
import itertools

import numpy as np

from op_cases import D, F, case


def _conv3d_t(x, w, strides, paddings, output_padding):
    """conv3d_transpose (groups 1) as a scatter of each input voxel times the filter."""
    n, _, *size = x.shape
    k, s, p = w.shape[2:], strides, paddings
    full = [(size[i] - 1) * s[i] + k[i] + output_padding[i] for i in range(3)]
    out = np.zeros((n, w.shape[1], *full), np.float64)
    for a, b, c in np.ndindex(*size):
        out[:, :, a * s[0]:a * s[0] + k[0], b * s[1]:b * s[1] + k[1], c * s[2]:c * s[2] + k[2]] += \
            np.einsum("nc,cozyx->nozyx", x[:, :, a, b, c], w)
    return out[:, :, p[0]:full[0] - p[1], p[2]:full[1] - p[3], p[4]:full[2] - p[5]].astype(x.dtype)


def _pool_with_index(x, ksize, strides, paddings, ceil_mode=False):
    """Max and its flat spatial index per window, the window clipped to the unpadded input (Paddle's loop)."""
    nd = len(ksize)
    size = x.shape[2:]
    out = [(size[i] + paddings[2 * i] + paddings[2 * i + 1] - ksize[i]) // strides[i] + 1 for i in range(nd)]
    vals = np.zeros(x.shape[:2] + tuple(out), x.dtype)
    idx = np.zeros(x.shape[:2] + tuple(out), np.int32)
    for n, c in np.ndindex(*x.shape[:2]):
        for o in np.ndindex(*out):
            best, at = -np.inf, -1
            lo = [o[i] * strides[i] - paddings[2 * i] for i in range(nd)]
            for pos in itertools.product(*(range(max(lo[i], 0), min(lo[i] + ksize[i], size[i])) for i in range(nd))):
                if x[(n, c) + pos] > best:
                    best, at = x[(n, c) + pos], int(np.ravel_multi_index(pos, size))
            vals[(n, c) + o], idx[(n, c) + o] = best, at
    return vals, idx


def _unpool(x, indices, output_size):
    out = np.zeros(x.shape[:2] + (int(np.prod(output_size)),), x.dtype)
    for n, c in np.ndindex(*x.shape[:2]):
        out[n, c, indices[n, c].ravel()] = x[n, c].ravel()
    return out.reshape(x.shape[:2] + tuple(output_size))


_CT3 = dict(strides=[2, 1, 2], paddings=[1, 0, 0, 1, 1, 1], output_padding=[1, 0, 0])
_MP2 = dict(ksize=[3, 2], strides=[2, 2], paddings=[1, 1, 0, 0])
_MP3 = dict(ksize=[2, 2, 2], strides=[1, 2, 2], paddings=[0, 0, 1, 1, 0, 0])
# one index per (n, c, position), distinct within a channel: what a non-overlapping pool's mask looks like
_IDX = np.array([[[[0, 5, 6], [9, 14, 15]], [[1, 4, 7], [8, 13, 11]]]], np.int32)
_MASK2 = np.array([[[[0, 3], [8, 6]], [[1, 2], [4, 7]]]], np.int32)

CASES_LAYERS = {
    "conv3d_transpose": case(F(1, 2, 2, 3, 2), F(2, 3, 2, 2, 3), **_CT3, tol=1e-4, ref=_conv3d_t),
    "max_pool2d_with_index": case(D(1, 2, 5, 4), **_MP2, ref=lambda x, **a: _pool_with_index(x, **a), grad_outs=[0]),
    "max_pool3d_with_index": case(D(1, 2, 3, 4, 4), **_MP3, ref=lambda x, **a: _pool_with_index(x, **a),
                                  grad_outs=[0]),
    "max_pool_with_index_grad": case(D(1, 2, 3, 3), _MASK2, F(1, 2, 2, 2)),
    "unpool": case(F(1, 2, 2, 3), _IDX, output_size=[4, 4], ref=_unpool),
    "unpool_grad": case(_IDX, F(1, 2, 4, 4)),
}

COMPOSITES_LAYERS = {
    "bilinear": case(F(3, 4), F(3, 5), F(2, 4, 5), F(1, 2), tol=1e-5,
                     ref=lambda a, b, w, bias: np.einsum("ni,kij,nj->nk", a, w, b) + bias),
}
