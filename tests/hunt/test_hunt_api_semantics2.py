"""Paddle 3.3 semantics (expected values recorded from it) of order statistics over a dim of unknown size,
repeat_interleave with tensor repeats, put_along_axis's reductions and nn.functional details: eagerly and
in a Program traced with an unknown batch dim, then run at another batch size."""
import numpy as np
import pytest

import dy2st
import runtime as rt

_X = np.array([[3., 1, 2, 5], [4, 0, 9, 7], [1, 1, 1, 2], [6, 5, 4, 3], [0, 2, 8, 1]], "float32")


def _order_stats(t):
    return (rt.median(t, axis=0), rt.median(t, axis=0, mode="min")[0], rt.quantile(t, 0.3, axis=0),
            rt.quantile(t, [0.25, 0.5], axis=0, interpolation="midpoint"), rt.kthvalue(t, 2, axis=0)[0],
            rt.median(t), rt.quantile(t, 0.7))


def test_order_stats_over_a_dim_of_unknown_size_match_paddle():
    want = {2: [[3.5, 0.5, 5.5, 6.0], [3.0, 0.0, 2.0, 5.0], [3.3, 0.3, 4.100000381469727, 5.6], [[3.5, 0.5, 5.5, 6.0]] * 2,
                [4.0, 1.0, 9.0, 7.0], 3.5, 4.9],
            5: [[3.0, 1.0, 4.0, 3.0], [3.0, 1.0, 4.0, 3.0], [1.4000000953674316, 1.0, 2.4000000953674316, 2.2],
                [[1.0, 1.0, 2.0, 2.0], [3.0, 1.0, 4.0, 3.0]], [1.0, 1.0, 2.0, 2.0], 2.5, 4.3]}
    sf = dy2st.to_static(_order_stats, input_spec=[dy2st.InputSpec([None, 4], "float32")])
    for b in (2, 5):
        eager, static = _order_stats(rt.to_tensor(_X[:b])), sf(rt.to_tensor(_X[:b]))
        for e, s, w in zip(eager, static, want[b]):
            np.testing.assert_array_equal(s.numpy(), e.numpy())
            np.testing.assert_allclose(e.numpy(), np.array(w, "float32"), rtol=0, atol=0)


def test_quantile_and_median_give_nan_where_the_dim_holds_one():
    x = rt.to_tensor(np.array([[1., np.nan, 3.], [1., 2., 3.]], "float32"))
    np.testing.assert_array_equal(rt.quantile(x, 0.2, axis=1).numpy(), np.array([np.nan, 1.4], "float32"))
    np.testing.assert_array_equal(rt.median(x, axis=1).numpy(), [np.nan, 2.0])
    values, index = rt.median(x, axis=1, mode="min")  # the NaN and its index (Paddle 3.3)
    np.testing.assert_array_equal(values.numpy(), [np.nan, 2.0])
    assert index.tolist() == [1, 1]


def test_repeat_interleave_with_tensor_repeats_in_a_program():
    def f(t, r):
        return rt.repeat_interleave(t, r, axis=1)
    sf = dy2st.to_static(f, input_spec=[dy2st.InputSpec([None, 3], "float32"), dy2st.InputSpec([None], "int64")])
    x = np.array([[1., 2, 3], [4, 5, 6]], "float32")
    for g in (f, sf):
        t = rt.to_tensor(x, stop_gradient=False)
        out = g(t, rt.to_tensor([1, 0, 2]))
        np.testing.assert_array_equal(out.numpy(), [[1, 3, 3], [4, 6, 6]])
        (out * rt.arange(3, dtype="float32")).sum().backward()
        np.testing.assert_array_equal(t.grad.numpy(), [[0, 0, 3], [0, 0, 3]])
        with pytest.raises(ValueError, match="length of repeats"):
            g(t, rt.to_tensor([2, 1]))


# (reduce, include_self) -> Paddle's (out, x.grad, values.grad) for sum(out * w)
_PUT = {
    ("mul", True): ([[6, 2, 3], [4, -100, 6]], [[6, 2, 3], [4, -100, 6]], [[3, 2], [-125, 100]]),
    ("mul", False): ([[6, 2, 3], [4, -20, 6]], [[0, 2, 3], [4, 0, 6]], [[3, 2], [-25, 20]]),
    ("mean", True): ([[2, 2, 3], [4, 4 / 3, 6]], [[1 / 3, 2, 3], [4, 5 / 3, 6]], [[1 / 3, 1 / 3], [5 / 3, 5 / 3]]),
    ("mean", False): ([[2.5, 2, 3], [4, -0.5, 6]], [[0, 2, 3], [4, 0, 6]], [[0.5, 0.5], [2.5, 2.5]]),
    ("amin", True): ([[1, 2, 3], [4, -5, 6]], [[1, 2, 3], [4, 0, 6]], [[0, 0], [0, 5]]),
    ("amin", False): ([[2, 2, 3], [4, -5, 6]], [[0, 2, 3], [4, 0, 6]], [[1, 0], [0, 5]]),
    ("amax", True): ([[3, 2, 3], [4, 5, 6]], [[0, 2, 3], [4, 5, 6]], [[0, 1], [0, 0]]),
    ("amax", False): ([[3, 2, 3], [4, 4, 6]], [[0, 2, 3], [4, 0, 6]], [[0, 1], [5, 0]]),
    ("add", False): ([[5, 2, 3], [4, -1, 6]], [[0, 2, 3], [4, 0, 6]], [[1, 1], [5, 5]]),
    ("assign", True): ([[3, 2, 3], [4, -5, 6]], [[0, 2, 3], [4, 0, 6]], [[0, 1], [0, 5]]),  # last write wins
}


@pytest.mark.parametrize("reduce,include_self", list(_PUT))
def test_put_along_axis_reductions_and_grads_match_paddle(reduce, include_self):
    def f(x, v):
        out = rt.put_along_axis(x, rt.to_tensor(np.array([[0, 0], [1, 1]])), v, 1, reduce=reduce,
                                include_self=include_self, broadcast=False)
        return out, rt.grad((out * rt.to_tensor(np.arange(1., 7., dtype="float32").reshape(2, 3))).sum(), [x, v])
    sf = dy2st.to_static(f, input_spec=[dy2st.InputSpec([None, 3], "float32"), dy2st.InputSpec([None, 2], "float32")])
    for g in (f, sf):
        x = rt.to_tensor(np.array([[1., 2, 3], [4, 5, 6]], "float32"), stop_gradient=False)
        v = rt.to_tensor(np.array([[2., 3], [4, -5]], "float32"), stop_gradient=False)
        out, (gx, gv) = g(x, v)
        for got, want in zip((out, gx, gv), _PUT[reduce, include_self]):
            np.testing.assert_allclose(got.numpy(), np.array(want, "float32"), rtol=1e-6)


def test_put_along_axis_ties_ints_and_bad_reduce():
    x = rt.to_tensor(np.array([[3., 2, 3], [4, 5, 6]], "float32"), stop_gradient=False)
    v = rt.to_tensor(np.array([[3., 1, 1], [5, 5, 0]], "float32"), stop_gradient=False)
    out = rt.put_along_axis(x, rt.to_tensor(np.array([[0, 0, 0], [1, 1, 2]])), v, 1, reduce="amax",
                            include_self=False, broadcast=False)
    gx, gv = rt.grad((out * rt.to_tensor(np.arange(1., 7., dtype="float32").reshape(2, 3))).sum(), [x, v])
    # Paddle counts x's own tied value in the share even without include_self (its share is dropped)
    np.testing.assert_allclose(gv.numpy(), [[0.5, 0, 0], [5 / 3, 5 / 3, 6]], rtol=1e-6)
    np.testing.assert_array_equal(gx.numpy(), [[0, 2, 3], [4, 0, 0]])
    xi, i2 = rt.to_tensor(np.array([[1, 2, 3], [4, 5, 6]])), rt.to_tensor(np.array([[0, 0], [1, 1]]))
    vi = rt.to_tensor(np.array([[2, 3], [4, -5]]))
    assert rt.put_along_axis(xi, i2, vi, 1, reduce="mean").numpy().tolist() == [[2, 2, 3], [4, 1, 6]]
    assert rt.put_along_axis(xi, i2, vi, 1, reduce="mean", include_self=False).numpy().tolist() == [[2, 2, 3], [4, -1, 6]]
    got = rt.put_along_axis(rt.to_tensor(np.array([[3., 2, 3], [4, 5, 6]], "float32")), rt.to_tensor([[0], [2]]),
                            9., 1, reduce="multiply")
    assert got.numpy().tolist() == [[27, 2, 3], [4, 5, 54]]
    with pytest.raises(ValueError, match="can not support reduce: 'foo'"):
        rt.put_along_axis(xi, i2, vi, 1, reduce="foo")


_L = (((np.arange(20) * 7 % 11) - 5) / 3).reshape(5, 4).astype("float32")
_LAB = np.array([0, 3, 1, 1, 2])


def _losses(x, y):
    import runtime.nn.functional as F
    w = rt.to_tensor(np.array([1., 2., 0.5, 3.], "float32"))
    return (F.cross_entropy(x, y, weight=w, ignore_index=1), F.cross_entropy(x, y, weight=w, reduction="none"),
            F.cross_entropy(x, y, label_smoothing=0.1), F.cross_entropy(x, y, weight=w, label_smoothing=0.2, ignore_index=1),
            F.cross_entropy(x, F.softmax(x * 0.5), soft_label=True, weight=w), F.normalize(x, p=3))


def test_cross_entropy_weight_label_smoothing_and_normalize_p_match_paddle():
    want = [2.2725210189819336, [3.739148, 5.641672, 0.715422, 5.761115, 0.845522], 2.086471, 0.490254, 1.363632,
            [[-0.777456, 0.310983, -0.310983, 0.777456], [0.221515, -0.664546, 0.886062, 0.0],
             [-0.665641, 0.499231, -0.16641, -0.832051], [0.383354, -0.383354, 0.958386, 0.191677],
             [-0.558484, 0.744645, 0.0, -0.744645]]]
    want_grad = np.array([[-0.109063, 3.444935, 2.858681, 5.000821], [5.454014, 5.102435, 7.09843, -2.399205],
                          [1.669177, 2.712294, 3.700515, 0.710918], [3.837445, -0.50462, 2.710655, 3.966931],
                          [2.788562, 5.846067, 1.881073, 2.304206]], "float32")  # d/dx sum((i + 1) * out_i)
    sf = dy2st.to_static(_losses, input_spec=[dy2st.InputSpec([None, 4], "float32"), dy2st.InputSpec([None], "int64")])
    sf(rt.to_tensor(_L[:2]), rt.to_tensor(_LAB[:2]))  # traced at batch 2
    for fn in (_losses, sf):
        x = rt.to_tensor(_L, stop_gradient=False)
        outs = fn(x, rt.to_tensor(_LAB))
        for o, w in zip(outs, want):
            np.testing.assert_allclose(o.numpy(), np.array(w, "float32"), rtol=2e-6, atol=2e-6)
        g = rt.grad(sum((o * (i + 1)).sum() for i, o in enumerate(outs)), x)[0]
        np.testing.assert_allclose(g.numpy(), want_grad, rtol=1e-5, atol=1e-5)


def test_cross_entropy_without_softmax_logs_zero_and_negative_probabilities_as_paddle():
    import runtime.nn.functional as F
    x = rt.to_tensor(np.array([[0.0, 1.0], [-0.5, 1.5], [1e-30, 1.0], [0.3, 0.7]], "float32"), stop_gradient=False)
    loss = F.cross_entropy(x, rt.to_tensor(np.array([0, 0, 0, 0])), use_softmax=False, reduction="none")
    g = rt.grad(loss.sum(), x)[0]
    np.testing.assert_allclose(loss.numpy(), np.array([1e20, np.nan, 69.07755, 1.2039728], "float32"), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), [[-np.inf, 0], [2, 0], [-1e30, 0], [-3.3333333, 0]], rtol=1e-6)


def test_dropout_with_axis_drops_whole_slices_eager_and_converted():
    import runtime.nn.functional as F
    x = rt.ones([5, 3, 4])
    np.testing.assert_allclose(F.dropout(x, 0.3, axis=1, training=False, mode="downscale_in_infer").numpy(), 0.7)
    assert F.dropout(x, 0.3, axis=1, training=False) is x
    out = F.dropout(x, 0.5, axis=[0, 2]).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and (out == out[:, :1]).all()
    sf = dy2st.to_static(lambda t: F.dropout(t, 0.5, axis=0), input_spec=[dy2st.InputSpec([None, 3], "float32")])
    sf(rt.ones([2, 3]))
    got = sf(rt.ones([6, 3])).numpy()
    assert got.shape == (6, 3) and (got == got[:, :1]).all() and set(np.unique(got)) <= {0.0, 2.0}
    with pytest.raises(ValueError, match="axis must be dims of x"):
        F.dropout(x, 0.5, axis=3)


def test_cross_entropy_loss_layer_takes_label_smoothing():
    loss = rt.nn.CrossEntropyLoss(label_smoothing=0.1)
    got = loss(rt.to_tensor(np.eye(3, dtype="float32")), rt.to_tensor([0, 1, 1])).item()
    assert got == pytest.approx(0.9181113243103027, rel=1e-6)  # Paddle 3.3


def test_put_along_axis_without_broadcast_reads_the_leading_block_of_larger_values():
    x, i = rt.zeros([2, 3]), rt.to_tensor([[0, 2]])
    v = rt.to_tensor([[1., 2, 3], [4, 5, 6]])
    for red in ("assign", "add", "amax"):  # Paddle 3.3: the index's one row only, values[:1, :2]
        got = rt.put_along_axis(x, i, v, 1, reduce=red, broadcast=False)
        assert got.tolist() == [[1, 0, 2], [0, 0, 0]], red


def test_quantile_over_a_list_of_axes_and_take_along_axis_without_broadcast():
    def f(t):
        return rt.quantile(t, 0.5, axis=[0, 2]), rt.quantile(t, [0.3, 0.6], axis=[2, 0], keepdim=True)
    sf = dy2st.to_static(f, input_spec=[dy2st.InputSpec([None, 3, 4], "float64")])
    x = np.arange(24.).reshape(2, 3, 4)
    sf(rt.to_tensor(x[:1]))
    for fn in (f, sf):
        a, b = fn(rt.to_tensor(x))
        assert a.tolist() == [7.5, 11.5, 15.5] and b.shape == [2, 1, 3, 1]  # Paddle 3.3
    a, i = rt.to_tensor(np.arange(6.).reshape(2, 3)), rt.to_tensor([[0, 2]])
    assert rt.take_along_axis(a, i, 1).tolist() == [[0, 2], [3, 5]]
    assert rt.take_along_axis(a, i, 1, broadcast=False).tolist() == [[0, 2]]


def test_constant_pad_lists_of_other_lengths_pad_from_the_last_dim():
    import runtime.nn.functional as F
    x3 = rt.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4))
    got = F.pad(x3, [1, 2, 0, 1], value=9.0)  # Paddle 3.3: last dim (1, 2), then dim 1 (0, 1)
    assert got.shape == [2, 4, 7] and got.numpy()[0, 3].tolist() == [9] * 7 and got.numpy()[0, 0, :2].tolist() == [9, 0]
    assert F.pad(rt.to_tensor(np.arange(12, dtype="float32").reshape(3, 4)), [1, 2], value=9.0).shape == [3, 7]
    x = rt.to_tensor(np.arange(6.).reshape(2, 3))
    assert F.pad(x, [1, 0, 0, 2], pad_from_left_axis=False).tolist() == [[0, 0, 1, 2], [0, 3, 4, 5], [0] * 4, [0] * 4]
    assert F.pad(rt.ones([1, 2, 2, 3]), [1, 0], data_format="NHWC").shape == [1, 2, 2, 4]


def _ce_neg_ignore(x, y):
    import runtime.nn.functional as F
    return F.cross_entropy(x, y), F.cross_entropy(x, y + 95 * (y < 0).astype("int64"), ignore_index=-5)


def test_cross_entropy_mean_with_a_negative_ignore_index_counts_every_label():
    sf = dy2st.to_static(_ce_neg_ignore, input_spec=[dy2st.InputSpec([None, 4], "float32"),
                                                     dy2st.InputSpec([None], "int64")])
    v = np.arange(8, dtype="float32").reshape(2, 4) / 3
    for fn in (_ce_neg_ignore, sf):
        x = rt.to_tensor(v, stop_gradient=False)
        a, b = fn(x, rt.to_tensor(np.array([-100, 2])))
        assert b.item() == pytest.approx(0.6440044641494751, rel=1e-6)
        assert a.item() == pytest.approx(0.6440044641494751, rel=1e-6)  # Paddle 3.3: divided by 2, not 1
        a.backward()
        np.testing.assert_allclose(x.grad.numpy(), [[0] * 4, [0.07081, 0.09882, -0.36209, 0.19247]], atol=1e-5)


def _bce(x, y):
    import runtime.nn.functional as F
    return F.binary_cross_entropy(x, y)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_binary_cross_entropy_refuses_probabilities_outside_0_1_as_paddle():
    sf = dy2st.to_static(_bce, input_spec=[dy2st.InputSpec([None], "float32"), dy2st.InputSpec([None], "float32")])
    y = rt.to_tensor(np.array([1., 0.], "float32"))
    for fn in (_bce, sf):
        assert fn(rt.to_tensor(np.array([0.3, 0.5], "float32")), y).item() == pytest.approx(0.94856, rel=1e-5)
        for v in (1.5, -0.2, np.nan):
            with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
                fn(rt.to_tensor(np.array([v, 0.5], "float32")), y)
