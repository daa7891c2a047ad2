"""Eager kernels against Paddle 3.3's meaning (indexing, meshgrid, arange, sorting a 0-d tensor...):
expected values come from numpy written the way Paddle reads the call, never from Paddle itself.

Differences from Paddle 3.3 kept on purpose (Paddle's side is a bug or a quirk):
- ties: topk/kthvalue/median(mode='min')/mode pick the first index in a stable order (Paddle's CPU kernels
  pick an unspecified one); median's gradient on ties goes to the elements it reports (Paddle spreads it);
- gradients Paddle gets wrong: batched eigh (only the first matrix is right), index_select with a negative
  index (sent to row 0), kthvalue of a 0-d tensor (always 1), masked_fill's and a masked item write's
  tensor value (none / zero), a duplicate-index item write (goes to the first write, the value is the last);
- Paddle refuses, runtime computes: int tensors in matmul_power/quantile/argmax of bools, mixed dtypes
  promoted as documented (concat, where, matmul f32 x f64), cross with broadcasting, flip/nonzero of 0-d;
- None next to a tensor index (x[None, 1, 1:3, [0, 2]]): Paddle indexes the wrong axis or crashes,
  runtime gives the PyTorch (= numpy after the ints) answer;
- var/std of an int tensor is float32 (Paddle truncates to int64); norm(p=0) carries no gradient
  (Paddle: zeros).
"""
import numpy as np
import pytest

import dy2st
import runtime as rt

X = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 7


def _grad_of(fn, x, w_seed=0):
    """fn(t) and d sum(fn(t) * w)/dt for a random w."""
    t = rt.to_tensor(x, stop_gradient=False)
    out = fn(t)
    w = np.random.RandomState(w_seed).standard_normal(out.shape).astype(np.float32)
    (out * rt.to_tensor(w)).sum().backward()
    return out.numpy(), t.grad.numpy(), w


# (key on a rt tensor, key on the numpy array giving Paddle's answer): ints act first, then the tensors
KEYS = [
    (lambda: (1, slice(None), [0, 2]), lambda a: a[1][:, [0, 2]]),
    (lambda: (rt.to_tensor(1), slice(None), [0, 2]), lambda a: a[1][:, [0, 2]]),
    (lambda: (slice(None), slice(1, 3), 2, [0, 1]), lambda a: a[:, 1:3, 2][:, :, [0, 1]]),
    (lambda: ([0, 1], 2, slice(1, None), [3, 4]), lambda a: a[:, 2][[0, 1], 1:, [3, 4]]),
    (lambda: (1, Ellipsis, [0, 2]), lambda a: a[1][..., [0, 2]]),
    (lambda: (1, slice(1, None), 0), lambda a: a[1, 1:, 0]),
]


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_getitem_ints_before_tensor_indices(k):
    key, ref = KEYS[k]
    out, g, w = _grad_of(lambda t: t[key()], X)
    np.testing.assert_array_equal(out, ref(X))
    expect = np.zeros_like(X)
    pos = ref(np.arange(X.size).reshape(X.shape))
    np.add.at(expect.reshape(-1), pos.reshape(-1), w.reshape(-1))
    np.testing.assert_allclose(g, expect, rtol=1e-6)


def test_setitem_ints_before_tensor_indices_and_static():
    v = np.random.RandomState(1).standard_normal((3, 2)).astype(np.float32)

    def write(x, v):
        y = x * 1
        y[1, :, 2, [0, 3]] = v
        return y[0, :, [1, 2], 3], y

    expect = X.copy()
    expect[1, :, 2][:, [0, 3]] = v
    xt, vt = rt.to_tensor(X, stop_gradient=False), rt.to_tensor(v, stop_gradient=False)
    read, y = write(xt, vt)
    np.testing.assert_array_equal(y.numpy(), expect)
    np.testing.assert_array_equal(read.numpy(), expect[0][:, [1, 2], 3])
    (y * 2).sum().backward()
    np.testing.assert_array_equal(vt.grad.numpy(), np.full((3, 2), 2, np.float32))
    gx = np.full(X.shape, 2, np.float32)
    gx[1, :, 2][:, [0, 3]] = 0
    np.testing.assert_array_equal(xt.grad.numpy(), gx)
    static = dy2st.to_static(write)(rt.to_tensor(X), rt.to_tensor(v))
    np.testing.assert_array_equal(static[0].numpy(), read.numpy())
    np.testing.assert_array_equal(static[1].numpy(), expect)


def test_bool_scalar_index():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert rt.to_tensor(a)[False].shape == [0, 2, 3]
    assert rt.to_tensor(a)[[]].shape == [0, 3]
    out, g, w = _grad_of(lambda t: t[True], a)
    np.testing.assert_array_equal(out, a[None])
    np.testing.assert_array_equal(g, w[0])
    out, g, _ = _grad_of(lambda t: t[rt.to_tensor(False)] * 1, a)
    assert out.shape == (0, 2, 3) and not g.any()


def test_meshgrid_xy_and_unknown_keywords():
    gx, gy = rt.meshgrid(rt.to_tensor([1.0, 2, 3]), rt.to_tensor([4.0, 5]), indexing="xy")
    ex, ey = np.meshgrid([1.0, 2, 3], [4.0, 5], indexing="xy")
    np.testing.assert_array_equal(gx.numpy(), ex)
    np.testing.assert_array_equal(gy.numpy(), ey)
    with pytest.raises(ValueError, match="indexing"):
        rt.meshgrid(rt.to_tensor([1.0]), indexing="ji")
    with pytest.raises(TypeError, match="unexpected"):
        rt.meshgrid(rt.to_tensor([1.0]), sparse=True)


def test_arange_int_dtype_truncates_bounds():
    np.testing.assert_array_equal(rt.arange(0, 5.5, dtype="int32").numpy(), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(rt.arange(-2.5, 2, dtype="int64").numpy(), [-2, -1, 0, 1])
    with pytest.raises(ValueError, match="step must not be 0"):
        rt.arange(0, 3, 0.5, dtype="int64")
    f = dy2st.to_static(lambda x: rt.arange(x, 3.7, dtype="int64"))
    np.testing.assert_array_equal(f(rt.to_tensor([0.5])).numpy(), [0, 1, 2])


def test_zero_d_sorting_and_small_fixes():
    s = rt.to_tensor(3.0, stop_gradient=False)
    v, i = rt.topk(s, 1)
    assert v.shape == [] and i.shape == [] and int(i) == 0 and float(v) == 3.0
    v, i = rt.kthvalue(s, 1)
    (v * 2.5).backward()
    assert s.grad.shape == [] and float(s.grad) == 2.5
    assert rt.sort(s).shape == [] and int(rt.argsort(s)) == 0
    with pytest.raises(ValueError, match="0-d"):
        rt.topk(s, 2)
    with pytest.raises(ValueError, match="int32 or int64"):
        rt.argmax(rt.to_tensor([1.0, 2.0]), dtype="float32")
    np.testing.assert_array_equal(rt.diag(rt.to_tensor(2.0)).numpy(), [[2.0]])
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(rt.roll(rt.to_tensor(a), rt.to_tensor(1), axis=1).numpy(), np.roll(a, 1, 1))
    out = rt.scatter(rt.to_tensor(a), rt.to_tensor(1), rt.to_tensor(np.ones(4, np.float32)))
    np.testing.assert_array_equal(out.numpy(), np.where(np.arange(3)[:, None] == 1, 1, a))
    out, g, w = _grad_of(lambda t: rt.transpose(t.reshape([3, 2, 2]), [-1, 0, -2]), a)
    np.testing.assert_array_equal(out, a.reshape(3, 2, 2).transpose(2, 0, 1))
    np.testing.assert_array_equal(g, w.transpose(1, 2, 0).reshape(3, 4))


def test_unique_keeps_nans_apart():
    out, index, inverse, counts = rt.unique(rt.to_tensor([np.nan, 1, np.nan, 0, 1]), return_index=True,
                                            return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), [0, 1, np.nan, np.nan])
    np.testing.assert_array_equal(index.numpy(), [3, 1, 0, 2])
    np.testing.assert_array_equal(inverse.numpy(), [2, 1, 3, 0, 1])
    np.testing.assert_array_equal(counts.numpy(), [1, 2, 1, 1])


def test_pinv_hermitian_gradient_is_symmetric():
    a = np.array([[4.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]])
    g = np.random.RandomState(2).standard_normal((3, 3))
    t = rt.to_tensor(a, stop_gradient=False)
    (rt.linalg.pinv(t, hermitian=True) * rt.to_tensor(g)).sum().backward()
    inv = np.linalg.inv(a)
    full = -inv.T @ g @ inv.T  # d<g, A^-1>/dA for an invertible A
    np.testing.assert_allclose(t.grad.numpy(), (full + full.T) / 2, rtol=1e-6)


def test_order_statistics_shapes_as_paddle():
    a = np.array([[1, np.nan, 3, 4], [np.nan, 2, np.nan, np.nan], [np.nan] * 4, [2, 1, 1, 2]], np.float32)
    t = rt.to_tensor(a)
    assert rt.median(t, keepdim=True).shape == [1, 1]
    assert rt.nanmedian(t, keepdim=True).shape == [1, 1]
    assert rt.quantile(t, 0.5, keepdim=True).shape == [1, 1]
    values, index = rt.nanmedian(t, axis=1, mode="min")
    np.testing.assert_array_equal(values.numpy(), [3, 2, np.nan, 1])
    np.testing.assert_array_equal(index.numpy(), [2, 1, -1, 2])  # the 2nd smallest of a stable sort
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(rt.quantile(rt.to_tensor(b), [0.5], axis=1).numpy(), np.quantile(b, 0.5, axis=1))
    assert rt.nanquantile(t, [0.3], axis=1, keepdim=True).shape == [4, 1]
    with pytest.raises(ValueError, match="must not be empty"):
        rt.quantile(rt.to_tensor(b), [])


def test_empty_argmax_and_expand_new_dims():
    assert rt.argmax(rt.zeros([0, 3]), axis=1).shape == [0]
    with pytest.raises(ValueError, match="empty dim"):
        rt.argmin(rt.zeros([0, 3]), axis=0)
    with pytest.raises(ValueError, match="new dim"):
        rt.expand(rt.ones([3]), [-1, 3])


def test_pinv_gradient_when_rcond_cuts_a_singular_value():
    a = np.random.RandomState(3).standard_normal((3, 4))  # singular values 2.79, 1.37, 0.75
    g = np.random.RandomState(4).standard_normal((4, 3))

    def f(x):
        return (np.linalg.pinv(x, rcond=0.5) * g).sum()
    fd = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = 1e-6
        fd[i] = (f(a + d) - f(a - d)) / 2e-6

    def loss(x):
        return (rt.linalg.pinv(x, rcond=0.5) * rt.to_tensor(g)).sum()
    t = rt.to_tensor(a, stop_gradient=False)
    loss(t).backward()
    np.testing.assert_allclose(t.grad.numpy(), fd, atol=1e-7)
    t = rt.to_tensor(a, stop_gradient=False)
    dy2st.to_static(loss)(t).backward()
    np.testing.assert_allclose(t.grad.numpy(), fd, atol=1e-7)


def _roll_by(x, shifts):
    return rt.roll(x, shifts, axis=[0, 1])


def test_roll_by_a_tensor_converted():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = dy2st.to_static(_roll_by)(rt.to_tensor(a), rt.to_tensor([1, -2]))
    np.testing.assert_array_equal(out.numpy(), np.roll(a, [1, -2], [0, 1]))


def test_mixed_keys_in_a_loop_with_executor_features_off_and_on():
    from runtime.static import passes  # noqa: PLC0415

    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    main = rt.static.Program()
    with rt.static.program_guard(main):
        rt.enable_static()
        try:
            x = rt.static.data("x", [3, 4, 5], "float32")
            idx = rt.static.data("idx", [2], "int64")
            _, acc = rt.static.nn.while_loop(
                lambda k, acc: k < 2,
                lambda k, acc: [k + 1, acc + x[1, :, idx] + x[k, :, idx] + x[:, 2][:, idx][0:1, :]],
                [rt.zeros([], "int64"), rt.zeros([4, 2])])
        finally:
            rt.disable_static()
    feed = {"x": a, "idx": np.array([0, 3])}
    got = []
    for flags in ({name: False for name in passes.FEATURES}, {}):
        with passes.features(**flags):
            got.append(rt.static.Executor().run(main, feed=feed, fetch_list=[acc])[0])
    expect = 2 * a[1][:, [0, 3]] + a[0][:, [0, 3]] + a[1][:, [0, 3]] + 2 * a[:, 2][:, [0, 3]][0:1]
    np.testing.assert_array_equal(got[0], expect)
    np.testing.assert_array_equal(got[1], expect)
