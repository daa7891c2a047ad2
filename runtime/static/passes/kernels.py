"""Kernel selection: the direct numpy a plan calls for an op whose static metadata allows it.

The registry's kernels check and dispatch on every call; when a Block's static
ranks and dtypes already settle those questions, the plan calls numpy directly
(``add`` with equal dtypes is ``np.add``; ``matmul`` of two matrices with
``transpose_y`` is ``x @ y.T``).  With the ``fast_kernels`` feature, ops a careful
numpy programmer would write differently get that version, computing the same
values in the same order (results are bitwise those of the registry kernel)::

    layer_norm (Mean/InvStd unused)   ->  xc = x - mean; var from xc; xc *= inv; xc *= w; xc += b
    gelu                              ->  the erf polynomial in place, float32 kept
    softmax                           ->  e = x - max; exp(e, out=e); e /= sum
    matmul of two float matrices      ->  np.dot (the same BLAS gemm without the gufunc machinery:
                                          ~30% less per call on small matrices)

Given a dead temporary X (``donate``), they overwrite it instead of allocating.
"""
import numpy as np

from ...registry import get_op
from .features import enabled

# The binary ufuncs in-place rewrites may call with out= (see inplace.py).
UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide}
_FLOATS = ("float16", "float32", "float64")


def _consts(dtype, *values):
    """``values`` as 0-d arrays of ``dtype``: the value a Python scalar operand is converted to
    on every ufunc call (NEP 50: to the array's dtype), converted once."""
    return tuple(np.asarray(v, dtype) for v in values)


def _layer_norm_y(axes, epsilon, donate, dtype):
    # x.var() is the mean of (x - mean)**2 with the same mean and sums: computed from xc here,
    # the subtraction is done once (bitwise the registry kernel's result)
    eps, one = _consts(dtype, epsilon, 1.0)

    def layer_norm(x, scale, bias):
        mean = x.mean(axis=axes, keepdims=True)
        xc = np.subtract(x, mean, out=x) if donate else x - mean
        var = np.multiply(xc, xc).mean(axis=axes, keepdims=True)
        var += eps
        np.sqrt(var, out=var)
        inv = np.divide(one, var, out=var)
        xc *= inv
        xc *= scale
        xc += bias
        return xc
    layer_norm.first_only = True  # returns Y alone (Mean and InvStd are unused)
    return layer_norm


def _gelu(dtype, donate):
    """The registry's erf gelu (Abramowitz & Stegun 7.1.26), the same operations in place."""
    sqrt2, = _consts(dtype, np.sqrt(2).astype(dtype))
    c0, one, half, c1, c2, c3, c4, c5 = _consts(dtype, 0.3275911, 1, 0.5, 0.254829592, -0.284496736,
                                               1.421413741, -1.453152027, 1.061405429)

    def gelu(x):
        z = x / sqrt2
        s = np.sign(z)
        a = np.abs(z, out=z)
        t = a * c0
        t += one
        np.divide(one, t, out=t)
        p = t * c5
        for c in (c4, c3, c2):
            p += c
            p *= t
        p += c1
        p *= t
        np.multiply(a, a, out=a)
        np.negative(a, out=a)
        np.exp(a, out=a)
        p *= a
        e = np.subtract(one, p, out=p)
        e *= s
        e += one
        h = np.multiply(x, half, out=x) if donate else x * half  # x * 0.5 is 0.5 * x, bit for bit
        return np.multiply(h, e, out=e)
    return gelu


def _softmax(axis, donate):
    def softmax(x):
        e = np.subtract(x, x.max(axis=axis, keepdims=True), out=x) if donate else x - x.max(axis=axis, keepdims=True)
        np.exp(e, out=e)
        e /= e.sum(axis=axis, keepdims=True)
        return e
    return softmax


def _dot(block, op, x):
    # np.dot of two C matrices calls the same cblas gemm as np.matmul (same values, same dtype);
    # anything else (batched, transposed, mixed dtypes) keeps the registry's choice
    y = _var(block, op, "Y")
    if (y is None or len(x.shape) != 2 or len(y.shape) != 2 or str(y.dtype) != str(x.dtype)
            or op.attrs.get("transpose_x", False) or op.attrs.get("transpose_y", False)):
        return None
    return np.dot


def _var(block, op, slot, k=0):
    names = op.inputs.get(slot) or ()
    return block._find_var(names[k]) if len(names) > k else None


_SPECIAL = frozenset(("gelu", "matmul", "softmax", "layer_norm"))


def _special(block, op, live, donate):
    if op.type not in _SPECIAL:
        return None
    x = _var(block, op, "X")
    if x is None or str(x.dtype) not in ("float32", "float64"):
        return None
    if op.type == "gelu" and not op.attrs.get("approximate", False):
        return _gelu(np.dtype(str(x.dtype)), donate)
    if op.type == "matmul":
        return _dot(block, op, x)
    if op.type == "softmax":
        axis = op.attrs.get("axis", -1)
        return _softmax(axis, donate) if -x.ndim <= axis < x.ndim else None
    if op.type == "layer_norm" and not any(n in live for n in op.output_arg_names[1:]):
        begin = op.attrs.get("begin_norm_axis", 1)
        norm = list(x.shape[begin:]) if 0 <= begin < x.ndim else None
        scale, bias = _var(block, op, "Scale"), _var(block, op, "Bias")
        if (norm is None or -1 in norm or scale is None or bias is None
                or list(scale.shape) != norm or list(bias.shape) != norm
                or str(scale.dtype) != str(x.dtype) or str(bias.dtype) != str(x.dtype)):
            return None
        return _layer_norm_y(tuple(range(begin, x.ndim)), float(op.attrs.get("epsilon", 1e-5)), donate,
                             np.dtype(str(x.dtype)))
    return None


def select_kernel(block, op, live=(), donate=False):
    """A direct numpy callable for ``op`` (its attrs resolved), or None for the registry kernel.

    ``live``: names read after the op (outputs not in it are unused).  ``donate``: X is a
    dead temporary of X's shape and dtype (``inplace.plan_inplace``) the kernel may overwrite.
    A callable with ``first_only`` set returns the first output alone.  numpy still
    raises on a bad run-time shape; the executor names the op.
    """
    if enabled("fast_kernels"):
        fast = _special(block, op, live, donate)
        if fast is not None:
            return fast
    opdef = get_op(op.type)
    return opdef.fast(block, op) if opdef.fast is not None else None
