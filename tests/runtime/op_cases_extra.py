"""Rows for the Paddle 2.x extras (runtime/ops/math_extra.py, index_extra.py, search.py, linalg.py,
math_composites.py): ``rows(...)`` gives the CASES and COMPOSITES op_cases merges into its own; the row
format is op_cases'. op_cases passes its input makers in (importing it here would be circular)."""
import math

import numpy as np

_erf = np.vectorize(math.erf)


def _unique(x):
    u, i, inv, c = np.unique(x.reshape(-1), return_index=True, return_inverse=True, return_counts=True)
    return u, i, inv.reshape(-1), c


def _scatter_ref(x, index, updates, overwrite):
    out = x.copy()
    out[index] = updates
    return out


def _put_ref(x, index, updates, axis):
    out = x.copy()
    np.put_along_axis(out, index, updates, axis)
    return out


def _array_write_ref(a, x, i):
    out = a.copy()
    out[i[0]] = x
    return out


def _mode_ref(x, axis):
    # row 0: 3 and 1 both twice, the smaller wins, at its last index; row 1: 2 (and 5) twice
    return np.array([1.0, 2.0], np.float32), np.array([3, 1])


def rows(D, F, P, case):  # noqa: N803  (op_cases' names for its input makers)
    """(CASES, COMPOSITES) rows for the extras, drawn with op_cases' input makers."""
    small = P(3, 4) * 0.4  # in [0.2, 0.8): inside asin/acos's domain, away from its edges
    m = np.array([[1.0, 2.0, 2.0], [np.nan, 4.0, 0.0]], np.float32)
    return _cases(D, F, P, case, small), _composites(D, F, P, case, m)


def _cases(D, F, P, case, small):  # noqa: N803
    return {
        "erf": case(F(3, 4), ref=lambda x: _erf(x)),
        "asin": case(small, ref=np.arcsin),
        "acos": case(small, ref=np.arccos),
        "atan": case(F(3, 4), ref=np.arctan),
        "sinh": case(F(3, 4), ref=np.sinh),
        "cosh": case(F(3, 4), ref=np.cosh),
        "tan": case(F(3, 4) * 0.5, ref=np.tan),
        "log2": case(P(3, 4), ref=np.log2),
        "log10": case(P(3, 4), ref=np.log10),
        "expm1": case(F(3, 4), ref=np.expm1),
        "log1p": case(P(3, 4), ref=np.log1p),
        "trunc": case(F(3, 4) * 3, ref=np.trunc),
        "atan2": case(F(3, 4), P(4), ref=np.arctan2),
        "reduce_amax": case(D(3, 4), axis=[1], ref=lambda x, axis: x.max(1)),
        "reduce_amin": case(D(3, 4), axis=[0], keepdim=True, ref=lambda x, axis, keepdim: x.min(0, keepdims=True)),
        "cumprod": case(P(3, 4), dim=1, ref=lambda x, dim: np.cumprod(x, 1)),
        "gather_nd": case(F(3, 4), np.array([[1, 2], [0, 0], [2, 3], [1, 2]]),
                          ref=lambda x, i: x[i[:, 0], i[:, 1]]),
        "scatter_nd_add": case(F(3, 4), np.array([[1], [0], [1]]), F(3, 4),
                               ref=lambda x, i, u: x + np.stack([u[1], u[0] + u[2], 0 * u[0]])),
        "scatter": case(F(4, 3), np.array([2, 0]), F(2, 3), overwrite=True, ref=_scatter_ref),
        "put_along_axis": case(F(3, 4), np.array([[0, 2], [1, 3], [3, 0]]), F(3, 2), axis=1, ref=_put_ref),
        "put_along_axis_reduce": case(F(3, 4), np.array([[0, 2, 0], [1, 3, 3], [3, 0, 3]]), F(3, 3), axis=1,
                                      reduce="mean", include_self=False, ref=None),
        "put_along_axis_reduce_grad": case(P(3, 4), np.array([[0, 2, 0], [1, 3, 3], [3, 0, 3]]), P(3, 3), P(3, 4),
                                           F(3, 4), axis=1, reduce="mul", include_self=True, ref=None),
        "repeat_interleave_index": case(F(2, 3), np.array([1, 0, 2]), axis=1,
                                        ref=lambda x, r, axis: np.array([0, 2, 2]), shape_known=False),
        "diagonal": case(F(2, 3, 4), offset=1, axis1=1, axis2=2,
                         ref=lambda x, offset, axis1, axis2: np.diagonal(x, 1, 1, 2)),
        "diagonal_grad": case(F(2, 3, 4), F(2, 3), offset=1, axis1=1, axis2=2),
        "einsum": case([F(2, 3), F(3, 4)], equation="bj,jk->kb",
                       ref=lambda xs, equation: np.einsum(equation, *xs)),
        "unique": case(np.array([[2, 1], [2, 3]]), ref=_unique, shape_known=False),
        "unique_consecutive": case(np.array([1, 1, 2, 2, 3, 1, 1]), shape_known=False,
                                   ref=lambda x: (np.array([1, 2, 3, 1]), np.array([0, 0, 1, 1, 2, 3, 3]),
                                                  np.array([2, 2, 1, 2]))),
        "searchsorted": case(np.array([1.0, 3.0, 5.0], np.float32), np.array([[0.0, 3.0], [5.0, 9.0]], np.float32),
                             right=True, dyn=(1,), ref=lambda s, v, right: np.searchsorted(s, v, "right")),
        # mode's value repeats by nature: finite differences break its ties (its gradient is in the parity tests)
        "mode": case(np.array([[3.0, 1, 3, 1], [2, 2, 5, 5]], np.float32), axis=1, grad=False, ref=_mode_ref),
        # tensor arrays: a stacked [n, ...] value, item I overwritten (an append is in test_hunt_tensor_array_api)
        "array_write": case(F(3, 2, 4), F(2, 4), np.array([1]), ref=_array_write_ref, shape_known=False),
        "array_write_grad": case(F(3, 2, 4), F(4, 2, 4), np.array([3])),
        "array_read": case(F(3, 2, 4), np.array([-1]), ref=lambda a, i: a[-1]),
        "array_read_grad": case(F(3, 2, 4), F(2, 4), np.array([2])),
    }

def _composites(D, F, P, case, _M):  # noqa: N803
    return {
        "dot": case(F(2, 3), F(2, 3), ref=lambda x, y: (x * y).sum(-1)),
        "mm": case(F(2, 3), F(3, 4), ref=lambda x, y: x @ y),
        "mv": case(F(2, 3), F(3), ref=lambda x, y: x @ y),
        "outer": case(F(3), F(2, 2), ref=lambda x, y: np.outer(x, y)),
        "kron": case(F(2, 3), F(2, 2), ref=np.kron),
        "cross": case(F(3, 2), F(3, 2), ref=lambda x, y: np.cross(x, y, axis=0)),
        "trace": case(F(3, 4), offset=1, ref=lambda x, offset: np.trace(x, 1)),
        "diag": case(F(3), offset=-1, padding_value=2.0,
                     ref=lambda x, offset, padding_value: np.diag(x, -1) + 2.0 * (np.diag(np.ones(3), -1) == 0)),
        "t": case(F(2, 3), ref=lambda x: x.T),
        "moveaxis": case(F(2, 3, 4), source=[0, 1], destination=[2, 0],
                         ref=lambda x, source, destination: np.moveaxis(x, [0, 1], [2, 0])),
        "view": case(F(2, 3), shape_or_dtype=[3, 2], ref=lambda x, shape_or_dtype: x.reshape(3, 2)),
        "unflatten": case(F(2, 6), axis=1, shape=[2, -1], ref=lambda x, axis, shape: x.reshape(2, 2, 3)),
        "rot90": case(F(2, 3), k=1, ref=lambda x, k: np.rot90(x)),
        "flip": case(F(2, 3, 4), axis=[0, 2], ref=lambda x, axis: np.flip(x, (0, 2))),
        "norm": case(F(3, 4), p=3.0, axis=1, ref=lambda x, p, axis: (np.abs(x) ** 3).sum(1) ** (1 / 3)),
        "dist": case(F(3, 4), F(4), p=2.0, ref=lambda x, y, p: np.sqrt(((x - y) ** 2).sum())),
        "roll": case(F(2, 3, 4), shifts=[1, -2], axis=[0, 2],
                     ref=lambda x, shifts, axis: np.roll(x, (1, -2), (0, 2))),
        "masked_select": case(F(2, 3), np.array([[True, False, True], [False, True, True]]),
                              ref=lambda x, m: x[m]),
        "unbind": case(F(2, 3), axis=1, ref=lambda x, axis: [x[:, i] for i in range(3)]),
        "meshgrid": case(F(2), F(3), ref=lambda a, b: np.meshgrid(a, b, indexing="ij")),
        "broadcast_tensors": case([F(2, 1), F(3)], ref=lambda xs: np.broadcast_arrays(*xs)),
        "take": case(F(2, 3), np.array([[-1, 0], [5, 2]]), ref=lambda x, i: x.reshape(-1)[i]),
        "index_sample": case(F(2, 4), np.array([[0, 0, 3], [3, 1, 2]]), ref=lambda x, i: np.take_along_axis(x, i, 1)),
        "repeat_interleave": case(F(2, 3), repeats=2, axis=1, ref=lambda x, repeats, axis: np.repeat(x, 2, 1)),
        "scatter_nd": case(np.array([[1], [0], [1]]), F(3, 4), shape=[3, 4],
                           ref=lambda i, u, shape: np.stack([u[1], u[0] + u[2], 0 * u[0]])),
        "tril_indices": case(row=3, col=4, offset=1, ref=lambda row, col, offset: np.stack(np.tril_indices(3, 1, 4))),
        "triu_indices": case(row=3, col=4, offset=-1, ref=lambda row, col, offset: np.stack(np.triu_indices(3, -1, 4))),
        "lerp": case(F(2, 3), F(2, 3), P(2, 3), ref=lambda x, y, w: x + w * (y - x)),
        "logaddexp": case(F(2, 3) * 3, F(2, 3) * 3, ref=np.logaddexp),
        "heaviside": case(np.array([-1.0, 0.0, 2.0], np.float32), F(3), grad=[1], ref=np.heaviside),
        "fmax": case(D(2, 3), D(2, 3) + 0.05, ref=np.fmax),
        "fmin": case(D(2, 3), D(2, 3) + 0.05, ref=np.fmin),
        "sgn": case(F(2, 3), ref=np.sign),
        "rad2deg": case(F(2, 3), ref=np.rad2deg),
        "isclose": case(np.array([1.0, 1.0, np.inf, np.nan], np.float32),
                        np.array([1.000001, 1.1, np.inf, np.nan], np.float32), equal_nan=True,
                        ref=lambda x, y, equal_nan: np.isclose(x, y, equal_nan=True)),
        "allclose": case(F(2, 3), F(2, 3), ref=lambda x, y: np.allclose(x, y)),
        "equal_all": case(np.array([1, 2]), np.array([1, 2]), ref=lambda x, y: np.array(True)),
        # finite replacements: the float64 gradient check cannot difference around 1e308
        "nan_to_num": case(np.array([np.nan, np.inf, -np.inf, 1.0], np.float32), posinf=9.0, neginf=-7.0,
                           ref=lambda x, posinf, neginf: np.nan_to_num(x, posinf=9.0, neginf=-7.0)),
        "nansum": case(_M, axis=1, ref=lambda x, axis: np.nansum(x, 1)),
        "nanmean": case(_M, axis=0, ref=lambda x, axis: np.nanmean(x, 0)),
        "count_nonzero": case(_M, axis=1, ref=lambda x, axis: np.count_nonzero(x, 1)),
        "diff": case(F(2, 4), n=2, ref=lambda x, n: np.diff(x, 2)),
        "logspace": case(start=0.0, stop=2.0, num=3, ref=lambda start, stop, num: np.logspace(0, 2, 3)),
        "median": case(F(3, 4), axis=1, ref=lambda x, axis: np.median(x, 1)),
        "quantile": case(F(3, 4), q=[0.25, 0.6], axis=1, ref=lambda x, q, axis: np.quantile(x, q, axis=1)),
        "kthvalue": case(D(3, 4), k=2, ref=lambda x, k: (np.sort(x, -1)[:, 1], np.argsort(x, -1)[:, 1])),
        "bucketize": case(F(2, 3), np.array([-1.0, 0.0, 1.0], np.float32),
                          ref=lambda x, s: np.searchsorted(s, x)),
        "is_empty": case(F(2, 0), ref=lambda x: np.array(True)),
        "rank": case(F(2, 3), ref=lambda x: np.array(2, np.int32)),
    }
