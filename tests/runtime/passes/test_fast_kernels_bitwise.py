"""The fast kernels' cheaper forms (``fast_reductions``, ``fast_embedding``, ``matmul_views``, gelu
written into its input) give the registry kernels' bits: on edge values at the kernel level, and through
a Program run with each switch off and on."""
import math

import numpy as np
import pytest
from helpers_passes import build

import runtime as rt
from runtime.ops import gelu_erf
from runtime.ops.nn_norm import _ln_kernel
from runtime.registry import get_op
from runtime.static import passes
from runtime.static.codegen import GENERATED
from runtime.static.passes import kernels

SWITCHES = ("fast_reductions", "fast_embedding", "matmul_views")


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def _same_bits(got, want):
    """Equal dtype, shape and bits; NaNs only need to be NaN at the same places."""
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(_bits(got)[~nan], _bits(want)[~nan])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reduced_layer_norm_and_softmax_match_the_registry(dtype):
    rng = np.random.default_rng(11)
    ln, softmax = get_op("layer_norm").kernel, get_op("softmax").kernel
    for shape, begin in (((2, 5, 16), 2), ((3, 7), 1), ((2, 3, 4, 5), 2), ((1, 32, 64), 2), ((4, 33, 129), 1)):
        for scale in (1.0, 1e-20, 1e15):
            x = ((rng.normal(size=shape) + rng.normal()) * scale).astype(dtype)
            norm = shape[begin:]
            w, b = rng.normal(size=norm).astype(dtype), rng.normal(size=norm).astype(dtype)
            want = ln(x, w, b, begin, 1e-5)[0]
            for donate in (False, True):
                fn = kernels._layer_norm_y(int(np.prod(norm)), 1e-5, donate, len(norm) == 1, x.dtype)
                _same_bits(fn(x.copy(), w, b), want)
                for axis in (-1, 0, begin):
                    _same_bits(kernels._softmax(axis, donate, True)(x.copy()), softmax(x, axis=axis))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_max_is_ndarray_max(dtype):
    """The transposed reduction over short rows gives the maxima of ndarray.max: on rows of NaN, +-inf,
    +-0 and random values, at the sizes on both sides of the switch; softmax of those rows is
    bitwise the same with the switch off and on."""
    from runtime.ops.nn_norm import softmax_max
    rng = np.random.default_rng(16)
    for shape in ((32, 32), (8, 4, 64), (31, 33), (64, 65), (6, 5), (1024, 1), (2, 16, 64)):
        x = rng.normal(size=shape).astype(dtype)
        flat = x.reshape(-1, shape[-1])
        flat[0] = np.nan
        flat[1, ::2] = np.inf
        flat[2] = -np.inf
        flat[3] = 0.0
        flat[3, 1::3] = -0.0
        flat[4, -1] = np.nan
        got, want = softmax_max(x, -1), x.max(axis=-1, keepdims=True)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)  # equal values, NaN where NaN
        with np.errstate(all="ignore"):
            for donate in (False, True):
                with passes.features(fast_reductions=False):
                    off = kernels._softmax(-1, donate, False)(x.copy())
                _same_bits(kernels._softmax(-1, donate, True)(x.copy()), off)


@pytest.mark.parametrize("dtype", ["float32"])  # float64 gelu keeps the registry's exact erf kernel
def test_gelu_in_place_matches_the_registry(dtype):
    rng = np.random.default_rng(12)
    tiny = np.finfo(dtype).smallest_subnormal
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, tiny, -tiny, 1e-30, -1e-30,
                      3.0, -3.0, 40.0, -40.0, 1e30, -1e30], dtype)
    unsigned = np.dtype(f"u{np.dtype(dtype).itemsize}")  # random bit patterns: every exponent, NaN payloads
    raw = rng.integers(0, np.iinfo(unsigned).max, size=4096, dtype=unsigned, endpoint=True).view(dtype)
    with np.errstate(all="ignore"):
        for x in (edges, rng.normal(size=(3, 40, 17)).astype(dtype) * 4, raw):
            want = get_op("gelu").kernel(x)
            for donate in (False, True):
                _same_bits(kernels._gelu(donate)(x.copy()), want)


@pytest.mark.parametrize("dtype", ["float32"])  # float64 gelu keeps the registry's exact erf kernel
def test_gelu_blocks_match_the_registry(dtype, monkeypatch):
    """Blocks of 10 elements (several whole blocks and a shorter last one, one block, a non-contiguous
    input, 0-d and empty inputs) give the bits of the default blocks, in place or not."""
    rng = np.random.default_rng(15)
    x = (rng.normal(size=(3, 7, 11)) * 3).astype(dtype)
    cases = (x, x[:1, :1, :3], x[:, ::2], x[0, 0, 0, ...], x[:0])
    with np.errstate(all="ignore"):
        wants = [get_op("gelu").kernel(a) for a in cases]
        monkeypatch.setattr(gelu_erf, "BLOCK", 10)
        for a, want in zip(cases, wants):
            _same_bits(get_op("gelu").kernel(a), want)
            for donate in (False, True):
                arg = a.copy() if a.flags.c_contiguous else a
                _same_bits(kernels._gelu(donate)(arg), want)


def test_gelu_float32_accuracy():
    """Against float64 erf: ~5e-7 relative near 0 (the polynomial's rounding), the negative tail to A&S's own
    accuracy (the old 0.5 x (1 + erf) cancelled there: relative error 1 at x = -6), the infinite limits."""
    xs = np.concatenate([np.linspace(-9, 9, 20001), np.geomspace(1e-30, 1, 2000), -np.geomspace(1e-30, 1, 2000)])
    x32 = xs.astype("float32")
    exact = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x32.astype(float)])
    with np.errstate(over="ignore"):
        got = get_op("gelu").kernel(x32).astype(float)
    rel = np.abs(got - exact) / np.maximum(np.abs(exact), 1e-300)
    assert rel[np.abs(x32) <= 3].max() < 1e-4 and rel[x32 >= -0.5].max() < 8e-7 and rel.max() < 3e-2
    with np.errstate(over="ignore"):
        ends = get_op("gelu").kernel(np.array([np.inf, -np.inf, np.nan, 3e38], "float32"))
    np.testing.assert_array_equal(ends[[0, 1, 3]], np.array([np.inf, 0.0, 3e38], "float32"))
    assert np.isnan(ends[2])


def _program():
    rt.seed(3)
    emb, ln, fc = rt.nn.Embedding(50, 16), rt.nn.LayerNorm(16), rt.nn.Linear(16, 16)

    def body():
        ids = rt.static.data("ids", [-1, 6], "int64")
        h = ln(emb(ids))
        s = rt.nn.functional.softmax(rt.matmul(h, h, transpose_y=True), axis=-1)
        return [ln(rt.nn.functional.gelu(fc(rt.matmul(s, h))) + h)]
    return build(body)


def test_switches_off_and_on_give_the_same_bits():
    prog, fetch = _program()
    rng = np.random.default_rng(13)
    feeds = [{"ids": rng.integers(0, 50, size=(b, 6))} for b in (1, 3)]

    def run(**flags):
        with passes.features(**flags):
            return [rt.static.Executor().run(prog, feed=f, fetch_list=fetch)[0] for f in feeds]
    ref = run(fast_kernels=False)
    before = set(GENERATED.keys())
    run()
    plans = [GENERATED[k] for k in list(GENERATED.keys()) if k not in before]
    used = {getattr(v, "__qualname__", "") for fn in plans for v in fn.__globals__.values()}
    assert {"_embedding.<locals>.embedding", "_gelu.<locals>.gelu", "_softmax.<locals>.softmax"} <= used
    assert any(".mT)" in fn.source or ".swapaxes(-1, -2))" in fn.source for fn in plans)
    for flags in ({}, *({name: False} for name in SWITCHES)):
        for got, want in zip(run(**flags), ref):
            _same_bits(got, want)
    for bad in (50, -1):  # out of range, negative: the registry kernel's error either way
        for flags in ({"fast_embedding": False}, {}):
            with passes.features(**flags), pytest.raises(ValueError, match=f"id {bad} is out of range"):
                rt.static.Executor().run(prog, feed={"ids": np.full((1, 6), bad)}, fetch_list=fetch)


def test_embedding_kernel_falls_back_on_other_ids():
    w = np.arange(12, dtype="float32").reshape(4, 3)
    fast = kernels._embedding(get_op("embedding").kernel, np.dtype("int64"))
    for ids in (np.array([[3, 0]]), np.array([1, 2], "int32"), np.zeros((0, 2), "int64"), np.array(2)):
        np.testing.assert_array_equal(fast(ids, w), w[ids])
    with pytest.raises(ValueError, match="out of range"):
        fast(np.array([-4]), w)


def _ln_reference(x, scale, bias, begin, epsilon):
    """The registry's layer_norm written out: float16 as np.mean / np.var; float32/float64 with the row
    sums of x as a (rows, count) matrix taken by ``@ ones`` (BLAS), each divided by the count (or, for a
    power-of-two count, by ``@`` a column of 1 / count)."""
    axes = tuple(range(begin, x.ndim))
    norm = x.shape[begin:]
    if x.dtype == np.float16:
        mean = x.mean(axis=axes, keepdims=True)
        inv = 1.0 / np.sqrt(x.var(axis=axes, keepdims=True) + epsilon)
        xc = x - mean
    else:
        count = int(np.prod(norm))
        x2, n = x.reshape(-1, count), x.dtype.type(count)
        if count & (count - 1):
            ones = np.ones((count, 1), x.dtype)
            mean = (x2 @ ones) / n
            xc = x2 - mean
            inv = 1.0 / np.sqrt(((xc * xc) @ ones) / n + epsilon)
        else:  # a power of two: the column holds 1 / count (the sums come out divided)
            ones = np.full((count, 1), 1 / count, x.dtype)
            xc = x2 - x2 @ ones
            inv = 1.0 / np.sqrt((xc * xc) @ ones + epsilon)
            mean = x2 @ ones
        stat = x.shape[:begin] + (1,) * len(norm)
        mean, inv, xc = mean.reshape(stat), inv.reshape(stat), xc.reshape(x.shape)
    y = xc * inv * scale.reshape(norm) + bias.reshape(norm)
    return y.astype(x.dtype, copy=False), mean.astype(x.dtype), inv.astype(x.dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_registry_layer_norm_formula_and_accuracy(dtype):
    rng = np.random.default_rng(14)
    kernel = get_op("layer_norm").kernel
    for shape, begin in (((2, 5, 16), 2), ((3, 7), 1), ((2, 3, 4, 5), 1), ((4, 33, 129), 2), ((0, 4), 1)):
        for scale in (1.0, 1e-3, 30.0, 1e4):
            x = ((rng.normal(size=shape) + 3 * rng.normal()) * scale).astype(dtype)
            norm = shape[begin:]
            w, b = rng.normal(size=norm).astype(dtype), rng.normal(size=norm).astype(dtype)
            with np.errstate(over="ignore", invalid="ignore"):  # float16 overflows alike both ways
                got = kernel(x, w, b, begin, 1e-5)
                if dtype == "float16":  # computed in float32, each output rounded once (float16_in_float32)
                    want = _ln_reference(*(a.astype("float32") for a in (x, w, b)), begin, 1e-5)
                    pairs = list(zip(got, (v.astype("float16") for v in want)))
                else:
                    pairs = list(zip(got, _ln_reference(x, w, b, begin, 1e-5)))
            for g, want in pairs:
                _same_bits(g, want)
            if dtype != "float16":  # as accurate as float64 np.mean / np.var rounded
                exact = _ln_kernel(x.astype("float64"), w.astype("float64"), b.astype("float64"), begin, 1e-5)[0]
                tol = 2e-5 if dtype == "float32" else 1e-12
                np.testing.assert_allclose(got[0], exact, rtol=tol, atol=tol * (1 + np.abs(b).max()))
