"""Gradient rules of the decomposition ops (linalg_ops.py), built from registered ops so they run on eager
Tensors and on static Variables alike. Real inputs only; the formulas are PyTorch's/TensorFlow's:

- cholesky: L^-T Phi(L^T gL) L^-1, Phi the lower triangle with the off-diagonal mirrored and halved
  (a symmetric gradient, as Paddle's);
- qr: Q (gR + tril(Q^T gQ - gQ^T Q + R gR^T - gR R^T) R^-T) + (gQ - Q Q^T gQ) R^-T for rows >= columns,
  TensorFlow's split [A | B] for wide inputs;
- svd (distinct singular values): U [(skew(U^T gU)/E) S + S (skew(V^T gV)/E) + diag(gS)] V^T plus the
  parts of gU, gV outside the spans of U, V; E_ij = S_j^2 - S_i^2;
- eigh (distinct eigenvalues): V (diag(gW) + F o (V^T gV)) V^T, F_ij = 1/(W_j - W_i) off the diagonal,
  symmetrized as Paddle's;
- lu: P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T for a square input, PyTorch's extension for
  tall and wide ones;
- pinv (constant rank): -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A).
"""
import numpy as np

from ..dispatch import apply


def matmul(a, b, ta=False, tb=False):
    """The matmul op (``ta``/``tb`` transpose the last two dims of a/b)."""
    return apply("matmul", a, b, transpose_x=ta, transpose_y=tb)


def mT(x):  # noqa: N802  (the matrix transpose, as torch's .mT)
    """``x`` with its last two dims swapped."""
    n = x.ndim
    return apply("transpose", x, perm=list(range(n - 2)) + [n - 1, n - 2])


def neg(x):
    """``-x``."""
    return apply("scale", x, scale=-1.0)


def add(a, b):
    """``a + b`` (the add op)."""
    return apply("add", a, b)


def sub(a, b):
    """``a - b`` (the subtract op)."""
    return apply("subtract", a, b)


def mul(a, b):
    """``a * b`` (the multiply op)."""
    return apply("multiply", a, b)


def unsq2(x):
    """``x[..., None, None]``."""
    return apply("unsqueeze", x, axis=[x.ndim, x.ndim + 1])


def batch_eye(n, dtype):
    """The n x n identity (broadcasts over batch dims)."""
    from .common import constant  # noqa: PLC0415
    return constant(np.eye(n), str(dtype))


def band(x, diagonal, upper):
    """``triu(x, diagonal)`` if upper else ``tril(x, diagonal)``."""
    from .composites_extra import tril, triu  # noqa: PLC0415  (composites_extra imports the shape ops)
    return triu(x, diagonal) if upper else tril(x, diagonal)


def _n(x, what):
    n = x.shape[-1]
    if n < 0:
        raise NotImplementedError(f"{what}: the gradient needs the matrix size known when the Program is built")
    return n


def cholesky_grad(out, g, upper):
    """The input gradient of cholesky (module docstring)."""
    low, gl = (mT(out), mT(g)) if upper else (out, g)
    p = band(matmul(low, gl, True, False), 0, upper=False)
    phi = apply("scale", add(p, mT(band(p, -1, upper=False))), scale=0.5)
    z = apply("triangular_solve", low, phi, upper=False, transpose=True)           # L^-T Phi
    return apply("triangular_solve", low, mT(z), upper=False, transpose=True)      # (L^-T (L^-T Phi)^T), symmetric


def _times_r_inv_t(x, r):
    """``x R^-T`` for upper-triangular R."""
    return mT(apply("triangular_solve", r, mT(x), upper=True, transpose=False))


def qr_grad(x, q, r, gq, gr, mode):
    """The input gradient of qr (module docstring); Q recomputed in mode "r"."""
    m, n = x.shape[-2], x.shape[-1]
    if mode == "complete" and (m < 0 or n < 0 or m > n):
        raise NotImplementedError(f"qr: the derivative is not implemented when mode='complete' and rows > "
                                  f"columns (as Paddle's), got shape {list(x.shape)}")
    if mode == "r":
        q, gq = apply("qr", x, mode="reduced")[0], None
    if 0 <= m < n:
        return _qr_grad_wide(x, q, r, gq, gr)
    # rows >= columns, or a size known only at run time: the tall rule (a wide input then fails in its
    # triangular solve, R not being square, rather than giving a wrong gradient)
    inner = None
    if gq is not None:
        qdq = matmul(q, gq, True, False)
        inner = sub(qdq, mT(qdq))
    if gr is not None:
        rdr = matmul(r, gr, False, True)
        rdr = sub(rdr, mT(rdr))
        inner = rdr if inner is None else add(inner, rdr)
    total = None
    if inner is not None:
        tril = band(inner, 0, upper=False)
        core = _times_r_inv_t(tril, r)
        core = core if gr is None else add(gr, core)
        total = matmul(q, core)
    if gq is not None:
        b = _times_r_inv_t(sub(gq, matmul(q, matmul(q, gq, True, False))), r)
        total = b if total is None else add(total, b)
    return total


def _safe_gap(row, col):
    """``row - col`` (an [..., k, k] matrix of eigen/singular value gaps), 1 where it is 0 (its diagonal,
    which the skew-symmetric factors it divides are 0 on): no identity of static size k is needed, so
    the rules work when k is known only at run time."""
    e = sub(row, col)
    zero = apply("equal", e, apply("fill_any_like", e, value=0.0))
    return apply("where", zero, apply("fill_any_like", e, value=1.0), e), zero


def _qr_grad_wide(x, q, r, gq, gr):
    """TensorFlow's rule for rows < columns: X = [A | B], R = [U | V]; the square part's rule with
    gQ + B gV^T, and Q gV for B."""
    from .indexing import getitem  # noqa: PLC0415
    from .shape import concat  # noqa: PLC0415
    m = x.shape[-2]

    def cols(t, a, b):
        return getitem(t, (Ellipsis, slice(None), slice(a, b)))

    n = x.shape[-1]
    a, b, u = cols(x, 0, m), cols(x, m, n), cols(r, 0, m)
    gu = gv = None
    if gr is not None:
        gu, gv = cols(gr, 0, m), cols(gr, m, n)
        gq = matmul(b, gv, False, True) if gq is None else add(gq, matmul(b, gv, False, True))
    ga = qr_grad(a, q, u, gq, gu, "reduced")
    gb = matmul(q, gv) if gv is not None else apply("fill_any_like", b, value=0.0)
    return concat([ga, gb], axis=-1)


def svd_grad(u, s, vh, gu, gs, gvh, full_matrices):
    """The input gradient of svd (module docstring)."""
    if gu is None and gvh is None:
        if full_matrices:  # only the first k columns of U / rows of VH meet S
            from .indexing import getitem  # noqa: PLC0415
            k = _n(s, "svd")
            u, vh = getitem(u, (Ellipsis, slice(0, k))), getitem(vh, (Ellipsis, slice(0, k), slice(None)))
        return matmul(mul(u, apply("unsqueeze", gs, axis=[gs.ndim - 1])), vh)
    if full_matrices:
        raise NotImplementedError("svd: the gradient through U or VH is only available with full_matrices=False")
    s_row = apply("unsqueeze", s, axis=[s.ndim - 1])    # [..., 1, k]: scales columns
    s_col = apply("unsqueeze", s, axis=[s.ndim])        # [..., k, 1]: scales rows
    s2 = mul(s, s)
    e, _ = _safe_gap(apply("unsqueeze", s2, axis=[s.ndim - 1]), apply("unsqueeze", s2, axis=[s.ndim]))
    inner, extra = None, None
    if gu is not None:
        utgu = matmul(u, gu, True, False)
        inner = mul(apply("divide", sub(utgu, mT(utgu)), e), s_row)
        # (I - U U^T) gU S^-1 V^T
        extra = matmul(apply("divide", sub(gu, matmul(u, utgu)), s_row), vh)
    if gvh is not None:
        vtgv = matmul(vh, gvh, False, True)                # V^T gV = VH gVH^T
        term = mul(s_col, apply("divide", sub(vtgv, mT(vtgv)), e))
        inner = term if inner is None else add(inner, term)
        # U S^-1 gV^T (I - V V^T), gV^T = gVH
        t = matmul(u, apply("divide", sub(gvh, matmul(matmul(gvh, vh, False, True), vh)), s_col))
        extra = t if extra is None else add(extra, t)
    out = add(matmul(matmul(u, inner), vh), extra)
    if gs is not None:  # U diag(gS) V^T
        out = add(out, matmul(mul(u, apply("unsqueeze", gs, axis=[gs.ndim - 1])), vh))
    return out


def eigh_grad(w, v, gw, gv):
    """The input gradient of eigh (module docstring)."""
    out = None
    if gv is not None:
        e, zero = _safe_gap(apply("unsqueeze", w, axis=[w.ndim - 1]), apply("unsqueeze", w, axis=[w.ndim]))
        f = apply("where", zero, apply("fill_any_like", e, value=0.0), apply("divide", apply("fill_any_like", e,
                                                                                           value=1.0), e))
        out = matmul(matmul(v, mul(f, matmul(v, gv, True, False))), v, False, True)
    if gw is not None:  # V diag(gW) V^T
        t = matmul(mul(v, apply("unsqueeze", gw, axis=[gw.ndim - 1])), v, False, True)
        out = t if out is None else add(out, t)
    return apply("scale", add(out, mT(out)), scale=0.5)  # symmetric, as Paddle's


def lu_grad(lu, pivots, g):
    """The input gradient of lu's packed output (PyTorch's linalg_lu_backward, square, tall and wide)."""
    from .indexing import getitem  # noqa: PLC0415
    from .shape import concat  # noqa: PLC0415
    m, n = lu.shape[-2], lu.shape[-1]
    if m < 0 or n < 0:
        raise NotImplementedError("lu: the gradient needs the matrix size known when the Program is built")
    k = min(m, n)

    def cols(x, a, b):
        return getitem(x, (Ellipsis, slice(None), slice(a, b)))

    def rows(x, a, b):
        return getitem(x, (Ellipsis, slice(a, b), slice(None)))

    low = add(band(cols(lu, 0, k), -1, upper=False), _eye(m, k, lu.dtype))      # [m, k]
    upp = band(rows(lu, 0, k), 0, upper=True)                                   # [k, n]
    gl, gu = band(cols(g, 0, k), -1, upper=False), band(rows(g, 0, k), 0, upper=True)
    if m >= n:  # tall (or square): L = [L1; L2], U square
        x = sub(matmul(gu, upp, False, True), matmul(low, gl, True, False))
        x = apply("triangular_solve", rows(low, 0, k), band(x, 0, upper=True), upper=False, transpose=True,
                  unitriangular=True)
        x = add(x, rows(gl, 0, k))
        if m > n:
            x = concat([x, rows(gl, k, m)], axis=-2)
        x = mT(apply("triangular_solve", upp, mT(x), upper=True, transpose=False))      # x U^-T
    else:  # wide: U = [U1, U2], L square
        x = sub(matmul(low, gl, True, False), matmul(gu, upp, False, True))
        x = mT(apply("triangular_solve", cols(upp, 0, k), mT(band(x, -1, upper=False)), upper=True,
                     transpose=False))                                                  # tril(x, -1) U1^-T
        x = concat([add(x, cols(gu, 0, k)), cols(gu, k, n)], axis=-1)
        x = apply("triangular_solve", low, x, upper=False, transpose=True, unitriangular=True)
    return matmul(apply("lu_pivots", pivots, n=m, dtype=str(lu.dtype)), x)


def _eye(m, k, dtype):
    from .common import constant  # noqa: PLC0415
    return constant(np.eye(m, k), str(dtype))


def pinv_grad(a, p, g):
    """The input gradient of pinv (module docstring), ``p`` its output, ``g`` the output gradient."""
    ptp = matmul(p, p, True, False)          # P^T P  [m, m]
    ppt = matmul(p, p, False, True)          # P P^T  [n, n]
    t1 = neg(matmul(matmul(p, g, True, False), p, False, True))
    gtppt = matmul(g, ppt, True, False)      # G^T P P^T  [m, n]
    t2 = sub(gtppt, matmul(a, matmul(p, gtppt)))
    ptpgt = matmul(ptp, g, False, True)      # P^T P G^T  [m, n]
    t3 = sub(ptpgt, matmul(matmul(ptpgt, p), a))
    return add(add(t1, t2), t3)
