"""Paddle 3's extra functions, Tensor methods, io/metric/autograd names: values and gradients against
Paddle 3.3 (the expected numbers below were printed by Paddle 3.3 for the same float64 calls), and a
converted function over many of them that matches eager mode, gradients included. Every new op and
composite also has a row in op_cases_tensorapi.py (numpy reference, one-op Program, finite differences).
"""
import numpy as np
import pytest

import dy2st
import runtime as rt

T = rt.to_tensor
INF, NAN = float("inf"), float("nan")
X = [0.0, -1.0, -1.5, 0.5, 3.0, 12.0]

# name: (input, Paddle 3.3 values, Paddle 3.3 gradient of the sum) for float64 inputs
SPECIAL = {
    "lgamma": (X, [INF, INF, 0.8600470153764809, 0.5723649429247001, 0.6931471805599453, 17.502307845873887],
               [-INF, NAN, 0.7031566406452434, -1.9635100260214227, 0.9227843350984675, 2.4426616799758123]),
    "digamma": (X, [-INF, NAN, 0.7031566406452434, -1.9635100260214227, 0.9227843350984675, 2.4426616799758123],
                [INF, INF, 9.379246644989124, 4.93480220054468, 0.39493406684822646, 0.0869018728717684]),
    "i0": (X, [1.0, 1.2660658777520082, 1.6467231897728907, 1.0634833707413234, 4.880792585865024, 18948.92534929631],
           [0.0, -0.5651591039924851, -0.9816664285779079, 0.25789430539089636, 3.9533702174026093,
            18141.348781638833]),
    "i0e": (X, [1.0, 0.46575960759364043, 0.36743360905415834, 0.64503527044915, 0.24300035416182536,
                0.11642622121344044],
            [-1.0, 0.25784919224393194, 0.1483942216332326, -0.48861446726427826, -0.04617364086452452,
             -0.004961921923259449]),
    "i1": (X, [0.0, -0.5651591039924851, -0.9816664285779079, 0.25789430539089636, 3.9533702174026093,
               18141.348781638833],
           [0.5, 0.700906773759523, 0.9922789040542854, 0.5476947599595307, 3.563002513397487, 17437.146284159742]),
    "i1e": (X, [0.0, -0.2079104153497085, -0.21903938742092574, 0.15642080318487173, 0.19682671329730084,
                0.111464299290181],
            [0.5, 0.049938776894223436, 0.0023679633526154653, 0.1757728608945348, -0.01943526356790909,
             -0.004326769684255619]),
    "erfinv": ([0.0, 0.5, -0.9, 0.999], [0.0, 0.4769362762044699, -1.1630871536766743, 2.3267537655135464],
               [0.886226925452758, 1.1125848189719498, 3.428042811451842, 198.93951776444513]),
    "polygamma": ([0.5, 3.0, -1.5, 7.0], [-16.828796644234316, -0.15411380631918856, -0.23620405164172825,
                                          -0.023530472985855234],
                  [97.40909103400242, 0.11893940226682916, 194.59427621918758, 0.007198198563125444]),
    "logcumsumexp": ([-1000.0, 0.0, 1.0, 800.0], [-1000.0, 0.0, 1.3132616875182228, 800.0],
                     [1.0, 1.2689414213699952, 0.731058578630005, 1.0]),
}
GAMMAINC = ([0.5, 2.0, 3.0, 7.0], [1.0, 0.5, 4.0, 12.0], [0.842700792949715, 0.09020401043104986,
                                                          0.7618966944464557, 0.9541776931113489],
            [0.20755374871029736, 0.3032653298563167, 0.14652511110987343, 0.02548127747172275])


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_match_paddle(name):
    x, want, want_grad = SPECIAL[name]
    t = T(np.array(x), stop_gradient=False)
    fn = (lambda v: rt.polygamma(v, 2)) if name == "polygamma" else getattr(rt, name)
    out = fn(t)
    out.sum().backward()
    assert out.dtype == "float64"
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(t.grad.numpy(), want_grad, rtol=1e-9, atol=1e-12)
    assert getattr(T(np.array(x, np.float32)), "polygamma" if name == "polygamma" else name)


def test_gammainc_pair_matches_paddle():
    a, x, p, dp = GAMMAINC
    ta, tx = T(np.array(a), stop_gradient=False), T(np.array(x), stop_gradient=False)
    lo, hi = rt.gammainc(ta, tx), rt.gammaincc(ta, tx)
    (lo - hi).sum().backward()
    np.testing.assert_allclose(lo.numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(hi.numpy(), 1 - np.array(p), rtol=1e-9)
    np.testing.assert_allclose(tx.grad.numpy(), 2 * np.array(dp), rtol=1e-12)
    assert ta.grad is None  # Paddle gives the shape argument no gradient


def test_values_dtypes_and_indices_match_paddle():
    # each expected value printed by Paddle 3.3 for the same call
    v, i = rt.cummax(T([1.0, 3.0, 3.0, 2.0, 5.0, 5.0]))
    assert v.tolist() == [1, 3, 3, 3, 5, 5] and i.tolist() == [0, 1, 2, 2, 4, 5] and i.dtype == "int64"
    assert rt.cummin(T([3.0, 1.0, 1.0, 2.0, 0.0, 0.0]))[1].tolist() == [0, 1, 2, 2, 4, 5]
    assert rt.gcd(T([-12, 0, 7]), T([18, 5, 0])).tolist() == [6, 5, 7]
    assert rt.lcm(T([-4, 0, 6]), T([6, 5, -4])).tolist() == [12, 0, 12]
    m, e = rt.frexp(T([8.0, 0.3, -5.0]))
    assert m.tolist() == pytest.approx([0.5, 0.6, -0.625]) and e.tolist() == [4, -1, 3] and e.dtype == "float32"
    assert rt.ldexp(T([1, 2]), T([2, 3])).dtype == "float32" and rt.deg2rad(T([180])).dtype == "float32"
    assert rt.isin(T([1, 2, 3]), T([2, 5])).tolist() == [False, True, False]
    assert rt.signbit(T([-0.0, 1.0, -2.0])).tolist() == [True, False, True]
    nan = np.nan
    assert rt.nanmedian(T([[1.0, nan, 3.0, 2.0], [nan, nan, 1.0, 4.0]]), axis=1).tolist() == [2.0, 2.5]
    assert rt.logit(T([0.1, 0.5, 0.9]), 0.2).tolist() == pytest.approx([-1.3862944, 0.0, 1.3862944])
    assert rt.copysign(T([1.0, -2.0, 0.0, 3.0]), T([-1.0, -0.0, -1.0, 2.0])).tolist() == [-1, -2, -0.0, 3]
    assert rt.broadcast_shapes([2, 1, 3], [4, 1]) == [2, 4, 3]
    assert rt.swapaxes(rt.ones([2, 3, 4]), [2, 0, 1]).shape == [4, 2, 3]  # Paddle 3: a permutation
    assert rt.swapaxes(rt.ones([2, 3, 4]), 0, 2).shape == [4, 3, 2]


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="polygamma: n must be a non-negative int"):
        rt.polygamma(T([1.0]), -1)
    with pytest.raises(TypeError, match="gcd takes integer tensors"):
        rt.gcd(T([1.0]), T([2.0]))
    with pytest.raises(ValueError, match="hsplit: dim 1 of size 5 does not split into 2"):
        rt.hsplit(rt.ones([2, 5]), 2)
    with pytest.raises(ValueError, match="cannot draw 3 distinct samples from 2"):
        rt.multinomial(T([0.5, 0.5]), 3)
    with pytest.raises(TypeError, match="sin_ would change the tensor's dtype"):
        T([1, 2]).sin_()


def _model(x, y):
    a = rt.erfinv(rt.tanh(x) * 0.9) + rt.lgamma(rt.abs(x) + 1) + rt.i0e(x) + x.logit(0.1) * 0.1
    v, i = rt.cummax(a, axis=1)
    b = rt.logcumsumexp(v, axis=1) + rt.hypot(x, y) + rt.copysign(x, y) + rt.sinc(x)
    parts = rt.tensor_split(b, 3, axis=1)
    h = rt.hstack([parts[0], parts[2]]) * 2
    d = rt.diagonal_scatter(b, rt.diagonal(h), 0)
    d = rt.masked_scatter(d, y > 0, x * 3)
    c = d.clone()
    c.sin_()
    c = rt.clamp(c, -0.8, 0.8) + rt.div(d, 2.0) + rt.nanmedian(d, axis=1, keepdim=True) + d.new_ones([1])
    w = rt.index_put(d, (T([0, 1, 0]), T([1, 2, 1])), x[0, :3], accumulate=True).mT.float()
    return (c.sum() + rt.trapezoid(b, axis=1).sum() + rt.vander(x[0], 3).sum() + i.astype("float32").sum()
            + w.sum() + rt.digamma(rt.abs(y) + 1).sum())


def test_converted_matches_eager_with_gradients():
    static = dy2st.to_static(_model)
    rng = np.random.default_rng(0)
    for _ in range(2):
        xa, ya = rng.standard_normal((2, 4)).astype(np.float32), rng.standard_normal((2, 4)).astype(np.float32)
        results = []
        for fn in (_model, static):
            x, y = T(xa, stop_gradient=False), T(ya, stop_gradient=False)
            loss = fn(x, y)
            loss.backward()
            results.append((loss.numpy(), x.grad.numpy(), y.grad.numpy()))
        for got, want in zip(results[1], results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    types = {op.type for op in static.main_program.global_block().ops}
    assert {"erfinv", "lgamma", "i0e", "cummax", "logcumsumexp", "copysign", "set_value", "digamma"} <= types


def test_inplace_methods_and_functions():
    x = T([[0.5, -0.2]])
    alias = x
    assert x.sin_() is x and alias.numpy().ravel().tolist() == pytest.approx([np.sin(0.5), np.sin(-0.2)])
    rt.abs_(x)
    x.transpose_([1, 0])
    assert alias.shape == [2, 1] and (alias.numpy() >= 0).all()
    x.clamp_(0.3, 0.4).cumsum_(axis=0)
    assert alias.numpy().ravel().tolist() == pytest.approx([0.4, 0.7]) and alias.inplace_version >= 4
    leaf = T([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="cannot be changed in place by square_"):
        leaf.square_()
    # through the tape: the gradient of an in-place chain is the out-of-place one
    a = T([0.3, 0.6], stop_gradient=False)
    b = a * 1.0
    b.tanh_().mul_(T([2.0, 3.0]))
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), (1 - np.tanh([0.3, 0.6]) ** 2) * [2, 3], rtol=1e-6)


def test_tensor_methods_and_properties():
    x = rt.ones([2, 3])
    assert x.new_zeros([2]).dtype == "float32" and x.new_full([2], 7, dtype="int32").tolist() == [7, 7]
    assert [x.long().dtype, x.int().dtype, x.double().dtype, x.char().dtype, x.byte().dtype, x.bool().dtype] == \
        ["int64", "int32", "float64", "int8", "uint8", "bool"]
    assert x.type_as(T([1], dtype="int16")).dtype == "int16" and x.to("float64").dtype == "float64"
    assert x.strides == [3, 1] and x.stride(0) == 3 and x.get_strides() == [3, 1]
    assert x.element_size() == 4 and x.itemsize == 4 and x.mT.shape == [3, 2]
    assert not x.requires_grad and x.requires_grad_() is x and not x.stop_gradient and x.requires_grad
    x.requires_grad = False
    assert x.stop_gradient and x.is_tensor()
    assert x.apply(lambda t: t * 2).tolist() == [[2.0] * 3] * 2


def test_io_metric_autograd():
    ds = rt.io.ConcatDataset([rt.io.TensorDataset([rt.arange(3)]), rt.io.TensorDataset([rt.arange(10, 12)])])
    assert len(ds) == 5 and ds[3][0].item() == 10 and ds[-1][0].item() == 11
    both = rt.io.ComposeDataset([rt.io.TensorDataset([rt.arange(2)]), rt.io.TensorDataset([rt.arange(5, 7)])])
    assert [v.item() for v in both[1]] == [1, 6]
    rt.seed(0)
    assert sorted(rt.io.SubsetRandomSampler([5, 6, 7])) == [5, 6, 7]
    assert set(rt.io.WeightedRandomSampler([0.0, 1.0, 3.0], 20)) <= {1, 2}
    assert rt.io.get_worker_info() is None
    assert len(list(rt.io.DataLoader(ds, batch_size=2))) == 3
    # Paddle 3.3's DistributedBatchSampler(TensorDataset(arange(10)), 3, shuffle=True), first epoch
    sampler = rt.io.DistributedBatchSampler(rt.io.TensorDataset([rt.arange(10)]), 3, shuffle=True)
    assert list(sampler) == [[2, 8, 4], [9, 1, 6], [7, 3, 0], [5]] and len(sampler) == 4
    p, r = rt.metric.Precision(), rt.metric.Recall()
    for m in (p, r):
        m.update(np.array([0.1, 0.7, 0.8, 0.4]), np.array([0, 1, 0, 1]))
    assert (p.accumulate(), r.accumulate(), p.name(), r.name()) == (0.5, 0.5, "precision", "recall")  # Paddle 3.3
    x = T([1.0, 2.0, 3.0], stop_gradient=False)
    J = rt.autograd.jacobian(rt.stack([x[0] * x[1], x[2] ** 2]), x)
    assert J.shape == [2, 3] and J[:].tolist() == [[2, 1, 0], [0, 0, 6]] and J[:, 1].tolist() == [1, 0]
    assert rt.autograd.hessian((x ** 3).sum(), x)[:].tolist() == [[6, 0, 0], [0, 12, 0], [0, 0, 18]]
    xb = T([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    assert rt.autograd.jacobian(xb * xb, xb, batch_axis=0)[:].tolist() == [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]
    with rt.set_grad_enabled(False):
        assert not rt.is_grad_enabled() and (x * 2).stop_gradient
    assert rt.autograd.is_grad_enabled()


def _noisy(x):
    n = rt.zeros_like(x)
    n.normal_(0.0, 0.1)
    m = rt.ones_like(x)
    m.bernoulli_(0.5)
    return x + n * m


def test_random_fills_repeat_after_seed_and_in_converted_code():
    static, x = dy2st.to_static(_noisy), rt.ones([2, 3])
    rt.seed(5)
    want = _noisy(x).numpy()
    rt.seed(5)
    np.testing.assert_array_equal(static(x).numpy(), want)
    # Paddle's init idiom: a parameter filled in place under no_grad keeps needing its gradient
    layer = rt.nn.Linear(2, 3)
    with rt.no_grad():
        layer.weight.uniform_(-0.5, 0.5)
    assert not layer.weight.stop_gradient and np.abs(layer.weight.numpy()).max() <= 0.5
    layer(rt.ones([1, 2])).sum().backward()
    assert layer.weight.grad.shape == [2, 3]
    rt.seed(0)
    big = rt.zeros([4000])
    assert abs(float(big.exponential_(2.0).mean()) - 0.5) < 0.05
    assert abs(float(big.normal_(1.0, 2.0).mean()) - 1.0) < 0.1
    assert float(big.geometric_(0.5).min()) == 1.0 and sorted(set(big.random_(0, 3).tolist())) == [0, 1, 2]
    state = rt.get_rng_state()
    a = rt.rand([3]).tolist()
    rt.set_rng_state(state)
    assert rt.rand([3]).tolist() == a


def test_later_additions_match_paddle():
    # printed by Paddle 3.3 for the same calls
    x, idx = rt.ones([2, 3]), T([[0, 0], [2, 1]])
    assert rt.scatter_add(rt.zeros([2, 3]), 1, idx, rt.ones([2, 2])).tolist() == [[2, 0, 0], [0, 1, 1]]
    assert x.scatter_reduce(1, idx, rt.ones([2, 2]) * 3, "sum", include_self=False).tolist() == [[6, 1, 1], [1, 3, 3]]
    assert rt.multigammaln(T([2.5]), 3).tolist() == pytest.approx([1.8809954])
    assert rt.crop(rt.ones([3, 4]), [2, -1], [1, 1]).shape == [2, 3]
    assert (rt.finfo("float32").eps, rt.iinfo("int32").max) == (np.finfo(np.float32).eps, 2 ** 31 - 1)
    src = T([[2., 3], [4, -5]])
    assert rt.scatter_reduce(x, 1, idx, src, "prod", include_self=False).tolist() == [[6, 1, 1], [1, -5, 4]]
    assert rt.scatter_reduce(x, 1, idx, src, "amax").tolist() == [[3, 1, 1], [1, 1, 4]]
    with pytest.raises(ValueError, match="reduce must be one of"):
        rt.scatter_reduce(x, 1, idx, x, "max")


def test_more_tensor_methods_and_windows():
    x = rt.zeros([5, 3])
    x.fill_diagonal_(1.0, wrap=True)  # Paddle 3.3: rows 0-2 and 4 hold the wrapped diagonal
    assert x.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [1, 0, 0]]
    y = rt.zeros([3, 4])
    assert y.fill_diagonal_(2.0, offset=1).tolist() == [[0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 2]]
    t = rt.arange(6, dtype="float32").reshape([2, 3])
    assert t.repeat(2, 1).shape == [4, 3] and t.reverse(1).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert t.slice([1], [1], [3]).shape == [2, 2] and t.is_same_shape(rt.ones([2, 3]))
    assert [p.shape for p in t.split_with_sizes([1, 2], 1)] == [[2, 1], [2, 2]]
    d = (t * 2)
    d.stop_gradient = False
    assert d.detach_().stop_gradient
    # numpy's windows (Paddle 3.3 agrees to 2e-7 in float32)
    np.testing.assert_allclose(rt.hann_window(6).numpy(), np.hanning(7)[:-1], atol=1e-7)
    np.testing.assert_allclose(rt.kaiser_window(6, False, 5.0).numpy(), np.kaiser(6, 5.0), atol=3e-7)
    assert rt.blackman_window(4, dtype="float64").dtype == "float64" and rt.hann_window(1).tolist() == [1.0]


def test_retain_grads_and_copy():
    x = T([1.0, 1.0], stop_gradient=False)
    y = x * 2
    y.retain_grads()
    z = y * 3
    z.retain_grads()
    (z * z).sum().backward()
    assert (y.grad.tolist(), z.grad.tolist(), x.grad.tolist()) == ([36, 36], [12, 12], [72, 72])  # Paddle 3.3
    ema, model = rt.nn.Linear(2, 2), rt.nn.Linear(2, 2)
    with rt.no_grad():
        for a, b in zip(ema.parameters(), model.parameters()):
            a.copy_(b)
    assert all(a.tolist() == b.tolist() and not a.stop_gradient for a, b in zip(ema.parameters(), model.parameters()))
    assert rt.zeros([2, 3]).copy_(rt.ones([3])).tolist() == [[1.0] * 3] * 2


@dy2st.to_static(input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
def _any_batch(x):
    return rt.hstack(rt.tensor_split(x, 2, axis=1)) + rt.nanmedian(x, axis=1, keepdim=True) + rt.logcumsumexp(x, 1)


@dy2st.to_static(input_spec=[dy2st.InputSpec([None, 4], "float32", "x")])
def _split_batch(x):
    return rt.tensor_split(x, 2, axis=0)[0]


def test_run_time_dims():
    # one Program serves every batch size; an index table over a run-time dim is refused, not guessed
    for n in (3, 5):
        x = rt.to_tensor(np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32))
        want = rt.hstack(rt.tensor_split(x, 2, axis=1)) + rt.nanmedian(x, axis=1, keepdim=True) + rt.logcumsumexp(x, 1)
        np.testing.assert_allclose(_any_batch(x).numpy(), want.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="tensor_split: dim 0 of x must have a known size"):
        _split_batch(rt.ones([3, 4]))
