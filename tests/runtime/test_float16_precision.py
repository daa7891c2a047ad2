"""float16 ops compute in float32 and round once, as Paddle's float16 kernels do (``float16_in_float32``
in the op and composite declarations, runtime/fp16_compute.py).

Each op runs on float16 inputs from 1e-6 to ~16 in magnitude, eagerly and converted: the converted
results and gradients are the eager ones bit for bit, and within 1 ulp (float16) of the float64
result.  In float16 arithmetic softplus was 43% off below 1e-3, elu/selu/celu and log_softmax 100%.
No RuntimeWarning: F.sigmoid/F.silu/F.swish of a float32 below -88 printed numpy's exp overflow.
"""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime.framework import static_mode_guard
from runtime.registry import get_op

_RNG = np.random.default_rng(7)
_MAG = np.concatenate([10.0 ** _RNG.uniform(-6, 1.2, 160), _RNG.uniform(0, 4, 80), [0.0, 6e-8, 11.0, 15.9]])
_X = (_MAG * _RNG.choice([-1.0, 1.0], _MAG.size)).astype(np.float16)[:243]  # 27 rows of 9
_G = _RNG.uniform(-2, 2, 243).astype(np.float16)
_W = _RNG.uniform(-1, 1, (2, 1, 3, 3)).astype(np.float16)  # conv2d's filter


def _rows(f):
    return lambda x: f(x.reshape([27, 9]))


# name: (function, input domain (clip bounds), gradient bound in ulps: None = checked from its output below)
_OPS = {
    "softplus": (F.softplus, None, 1), "silu": (F.silu, None, 1), "swish": (F.swish, None, 1),
    "mish": (F.mish, None, 1), "sigmoid": (F.sigmoid, None, None), "log_sigmoid": (F.log_sigmoid, None, 1),
    "hardswish": (F.hardswish, None, 1), "hardsigmoid": (F.hardsigmoid, None, 1), "elu": (F.elu, None, 1),
    "celu": (F.celu, None, 1), "selu": (F.selu, None, 1), "gelu": (F.gelu, None, 1),
    "gelu_tanh": (lambda x: F.gelu(x, approximate=True), (-3, 16), 2), "softsign": (F.softsign, None, 1),
    "tanh": (F.tanh, None, None), "tanhshrink": (F.tanhshrink, None, 2),
    "log_softmax": (_rows(lambda x: F.log_softmax(x, axis=-1)), None, None),
    "softmax": (_rows(lambda x: F.softmax(x, axis=-1)), None, None),
    "logsumexp": (_rows(lambda x: rt.logsumexp(x, axis=-1)), None, 1),
    "erf": (rt.erf, None, 1), "expm1": (rt.expm1, (-16, 8), None), "log1p": (rt.log1p, (-0.9, 16), 1),
    "rsqrt": (rt.rsqrt, (1e-3, 16), None), "mean": (_rows(lambda x: rt.mean(x, axis=-1)), None, 1),
    "var": (_rows(lambda x: rt.var(x, axis=-1)), None, 1), "std": (_rows(lambda x: rt.std(x, axis=-1)), None, 1),
    "norm": (_rows(lambda x: rt.norm(x, axis=-1)), None, 1),
    "cumsum": (_rows(lambda x: rt.cumsum(x, axis=-1)), None, 1),
    "layer_norm": (_rows(lambda x: F.layer_norm(x, 9)), None, 1),
    "avg_pool2d": (lambda x: F.avg_pool2d(x.reshape([3, 1, 9, 9]), 3), None, 1),
    "bilinear": (lambda x: F.interpolate(x.reshape([3, 1, 9, 9]), scale_factor=1.7, mode="bilinear"), None, 1),
    "conv2d": (lambda x: F.conv2d(x.reshape([3, 1, 9, 9]), rt.cast(rt.to_tensor(_W), x.dtype), padding=1), None, 1),
    "mse_loss": (lambda x: F.mse_loss(x, rt.cast(rt.to_tensor(_G), x.dtype)), None, 1),
    "batch_norm": (_rows(lambda x: F.batch_norm(x, rt.zeros([9], x.dtype), rt.ones([9], x.dtype), rt.ones([9], x.dtype),
                                                rt.zeros([9], x.dtype), training=True)), None, 1),
}


def _ordered(a):
    """float16 values as integers one apart per ulp (so |a - b| counts ulps, across 0 too)."""
    b = np.asarray(a, np.float16).view(np.int16).astype(np.int64)
    return np.where(b < 0, -(b & 0x7FFF), b)


def _ulps(got, want):
    got, want = np.asarray(got, np.float16), np.asarray(want, np.float16)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    return np.abs(_ordered(got[ok]) - _ordered(want[ok]))


def _run(fn, v, dtype):
    x = rt.to_tensor(v.astype(dtype), stop_gradient=False)
    out = fn(x)
    (out * rt.to_tensor(np.resize(_G, out.shape).astype(dtype))).sum().backward()
    return out.numpy(), x.grad.numpy()


def _from_output(name, out, g):
    """The float64 gradient of ``out`` (float16, as the op saved it) and ``g``: what the gradient kernel
    computes from the rounded output (as Paddle's), before its one rounding."""
    o, g = out.astype(np.float64), np.resize(g, out.shape).astype(np.float64)
    if name == "sigmoid":
        return g * o * (1 - o)
    if name == "tanh":
        return g * (1 - o * o)
    if name == "expm1":
        return g * (o + 1)
    if name == "rsqrt":
        return -0.5 * g * o ** 3
    if name == "softmax":
        return o * (g - (g * o).sum(-1, keepdims=True))
    return g - np.exp(o) * g.sum(-1, keepdims=True)  # log_softmax


@pytest.mark.parametrize("name", sorted(_OPS))
def test_float16_op_rounds_float32_result_once(name):
    fn, domain, gbound = _OPS[name]
    v = _X if domain is None else np.clip(_X, *domain).astype(np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (numpy's overflow...) on these inputs
        out, grad = _run(fn, v, "float16")
        sout, sgrad = _run(dy2st.to_static(lambda x: fn(x)), v, "float16")
        out64, grad64 = _run(fn, v, "float64")
    assert out.dtype == np.float16 and grad.dtype == np.float16
    np.testing.assert_array_equal(sout, out)  # converted == eager, bit for bit
    np.testing.assert_array_equal(sgrad, grad)
    assert _ulps(out, out64).max() <= 1
    want = grad64 if gbound is not None else _from_output(name, out, _G).reshape(grad.shape)
    assert _ulps(grad, want).max() <= (gbound or 1)


def test_float32_sigmoid_family_is_quiet_and_exact_at_the_limits():
    x = rt.to_tensor(np.array([-1000.0, -100.0, -88.8, 0.0, 88.8, 1000.0], np.float32), stop_gradient=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sig = F.sigmoid(x)
        silu = F.silu(x)
        F.swish(x).sum().backward()
    assert sig.numpy().tolist() == [0.0, 0.0, 0.0, 0.5, 1.0, 1.0]
    assert silu.numpy().tolist() == [0.0, 0.0, 0.0, 0.0, np.float32(88.8), 1000.0]
    assert np.isfinite(x.grad.numpy()).all()


def test_mixed_float16_and_float32_keep_the_kernel():
    """Only all-float16 kernels switch: float16 with a float32 operand runs the kernel as before."""
    ln = get_op("layer_norm").kernel
    x, w, b = _X[:18].reshape(2, 9), np.ones(9, np.float32), np.zeros(9, np.float32)
    for got, want in zip(ln(x, w, b), ln.__wrapped__(x, w, b)):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    h, f = rt.to_tensor(x), rt.to_tensor(w)  # a composite (lerp) of float16 and float32 promotes too
    assert rt.lerp(h[0], f, 0.5).dtype == "float32" and rt.lerp(h[0], h[1], 0.5).dtype == "float16"


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_plain_kernels_switch_keeps_results(dtype):
    """``plain_kernels`` (a float32 Program calls the kernels float16_in_float32 wraps) on and off:
    the same bits, and the eager ones."""
    from runtime.static import passes

    def body():
        x = rt.static.data("x", [27, 9], dtype)
        h = F.sigmoid(rt.scale(F.softmax(x, axis=-1), 3.0, 0.5))
        return rt.cumsum(h, axis=-1).mean(axis=0) + F.log_softmax(x).sum(axis=1).mean()

    prog = rt.static.Program()
    with rt.static.program_guard(prog, rt.static.Program()), static_mode_guard(True):
        out = body()
    feed = {"x": _X.reshape(27, 9).astype(dtype)}
    got = []
    for on in (False, True):
        with passes.features(plain_kernels=on):
            got.append(rt.static.Executor().run(prog, feed=feed, fetch_list=[out])[0])
    xe = rt.to_tensor(feed["x"])
    eager = (rt.cumsum(F.sigmoid(rt.scale(F.softmax(xe, axis=-1), 3.0, 0.5)), axis=-1).mean(axis=0)
             + F.log_softmax(xe).sum(axis=1).mean()).numpy()
    assert got[0].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[1], eager)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_eager_plain_kernels_switch_keeps_results(dtype):
    """Eager ``plain_kernels`` on and off: dispatch calling the kernel a float16_in_float32 op wraps
    when no input is float16, and a composite whose first argument is a float32/float64 Tensor calling
    its function, give the wrappers' bits, values and gradients (a float16 second argument included)."""
    from runtime.static import passes
    wide = [-1000.0, -89.0, -88.7, 88.7, 1e-40, 3e38, -3e38] if dtype != "float16" else []
    v = np.concatenate([_X.astype(dtype), np.array(wide, dtype)])[:243]
    fns = [lambda x: rt.scale(x, 1.7, 0.3), F.sigmoid, F.silu, F.softplus, F.elu, _rows(lambda x: F.layer_norm(x, 9)),
           lambda x: rt.lerp(x, rt.to_tensor(_G), 0.25), lambda x: F.mse_loss(x, rt.to_tensor(_G.astype(dtype)))]
    got = []
    for on in (False, True):
        with passes.features(plain_kernels=on), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # 3e38 * 1.7 overflows in scale, as it did
            got.append([_run(f, v, dtype) for f in fns])
    for (o0, g0), (o1, g1) in zip(*got):
        assert o0.dtype == o1.dtype and g0.dtype == g1.dtype
        assert o0.tobytes() == o1.tobytes() and g0.tobytes() == g1.tobytes()


def test_sigmoid_kernel_is_the_expression_bit_for_bit():
    """The sigmoid kernel (in-place steps, errstate) gives ``1 / (1 + exp(-x))``'s bits and dtype, quietly,
    on float32/float64 bit patterns, both limits, NaN/inf, views, 0-d and empty arrays, and leaves x alone."""
    kernel = get_op("sigmoid").kernel.__wrapped__
    bits = np.random.default_rng(11).integers(0, 2**63, 20000, dtype=np.int64)
    for dt, lim in ((np.float32, 120), (np.float64, 800)):
        pattern = (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32) if dt is np.float32 else bits.view(np.float64)
        pattern = pattern[np.isfinite(pattern)][:10000]  # no signalling NaN (numpy warns 'invalid', as before)
        x = np.concatenate([pattern, np.linspace(-lim, lim, 4000, dtype=dt), np.array([np.nan, np.inf, -np.inf, -0.0], dt)])
        for a in (x, x.reshape(-1, 4).T, x[::3], np.array(-1000, dt), np.array(2.5, dt), x[:0]):
            before = a.copy()
            with np.errstate(over="ignore", invalid="ignore"):
                want = 1 / (1 + np.exp(-a))
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = kernel(a)
            assert type(got) is type(want) and got.dtype == want.dtype and np.shape(got) == np.shape(want)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
            assert a.tobytes() == before.tobytes()
