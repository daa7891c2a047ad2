"""Paddle's argument names, positional order and defaults: calls ported from Paddle code by changing
imports bind the same parameters (a positional call binding another parameter is silently wrong)."""
import numpy as np
import pytest

import runtime as rt


def test_tensor_where_method_takes_the_tensor_as_condition():
    c = rt.to_tensor([True, False, True])
    x, y = rt.to_tensor([1.0, 2.0, 3.0]), rt.to_tensor([7.0, 8.0, 9.0])
    np.testing.assert_array_equal(c.where(x, y).numpy(), [1.0, 8.0, 3.0])
    np.testing.assert_array_equal(c.where(x=x, y=y).numpy(), [1.0, 8.0, 3.0])


def test_round_decimals_is_the_second_parameter():
    x = rt.to_tensor([0.5, 1.5, -2.5])
    np.testing.assert_array_equal(rt.round(x, 0).numpy(), [0.0, 2.0, -2.0])
    np.testing.assert_array_equal(x.round(decimals=0).numpy(), [0.0, 2.0, -2.0])
    with pytest.raises(NotImplementedError, match="decimals"):
        rt.round(x, 2)


def test_scale_act_positional_and_keyword():
    x = rt.to_tensor([-1.0, 2.0])
    np.testing.assert_array_equal(rt.scale(x, 2.0, 1.0, True, "relu").numpy(), [0.0, 5.0])
    np.testing.assert_array_equal(x.scale(scale=2.0, act="relu").numpy(), [0.0, 4.0])
    with pytest.raises(ValueError, match="act"):
        rt.scale(x, act="no_such_activation")


def test_seed_keywords_and_random_split_generator():
    rt.seed(seed=5)
    a = rt.rand([3]).numpy()
    rt.manual_seed(seed=5)
    np.testing.assert_array_equal(rt.rand([3]).numpy(), a)
    state = rt.get_rng_state()
    b = rt.rand([2]).numpy()
    rt.set_rng_state(state_list=state)
    np.testing.assert_array_equal(rt.rand([2]).numpy(), b)
    parts = rt.io.random_split(list(range(4)), [3, 1], generator=None)
    assert sorted(parts[0][i] for i in range(3)) + [parts[1][0]] != [] and len(parts[1]) == 1


def test_momentum_positional_order_and_multi_precision():
    p = rt.create_parameter([2], "float32", default_initializer=rt.nn.initializer.Constant(1.0))
    # Paddle's order: ..., grad_clip, multi_precision, rescale_grad
    opt = rt.optimizer.Momentum(0.1, 0.9, [p], False, None, None, True, 0.5)
    assert opt._grad_rescale == 0.5
    sgd = rt.optimizer.SGD(0.5, [p], None, None, True)
    p.grad = rt.to_tensor([2.0, 4.0])
    sgd.step()
    np.testing.assert_array_equal(p.numpy(), [0.0, -1.0])
    sgd.clear_grad()
    p16 = rt.create_parameter([2], "float16")
    with pytest.raises(NotImplementedError, match="multi_precision"):
        rt.optimizer.SGD(0.1, [p16], multi_precision=True)


def test_clear_gradient_set_to_zero_keyword():
    x = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    x.clear_gradient(set_to_zero=False)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_legacy_batchnorm_positional_order_and_lstm_proj_size():
    # Paddle: (..., dtype, data_layout, in_place, moving_mean_name, moving_variance_name,
    #          do_model_average_for_mean_and_var, use_global_stats, trainable_statistics)
    bn = rt.nn.BatchNorm(2, None, False, 0.9, 1e-5, None, None, "float32", "NCHW", False, None, None, True, True)
    x = rt.to_tensor([[1.0, 2.0], [3.0, 6.0]])
    # use_global_stats=True: the initial statistics (mean 0, variance 1) even in training
    np.testing.assert_allclose(bn(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    lstm = rt.nn.LSTM(3, 4, 1, "forward", False, 0.0, None, None, None, None, 0)
    assert lstm(rt.ones([1, 2, 3]))[0].shape == [1, 2, 4]
    projected = rt.nn.LSTM(3, 4, 1, "forward", False, 0.0, None, None, None, None, 2)  # proj_size, 11th
    assert projected(rt.ones([1, 2, 3]))[0].shape == [1, 2, 2]
    assert rt.nn.LSTMCell(3, 4, None, None, None, None, 2).proj_size == 2


def test_bitwise_and_logical_out_positional_and_keyword():
    a, b = rt.to_tensor([3, 5]), rt.to_tensor([1, 4])
    out = rt.to_tensor([0, 0])
    assert rt.bitwise_and(a, b, out) is out
    np.testing.assert_array_equal(out.numpy(), [1, 4])
    a.bitwise_xor(b, out=out)
    np.testing.assert_array_equal(out.numpy(), [2, 1])
    rt.bitwise_invert(a, out)
    np.testing.assert_array_equal(out.numpy(), [-4, -6])
    t, f = rt.to_tensor([True, False]), rt.to_tensor([False, False])
    res = rt.to_tensor([False, True])
    rt.logical_or(t, f, out=res)
    np.testing.assert_array_equal(res.numpy(), [True, False])
    rt.logical_not(t, res)
    np.testing.assert_array_equal(res.numpy(), [False, True])


def test_index_add_alpha_and_adam_keywords():
    x, v = rt.ones([3, 2]), rt.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    i = rt.to_tensor([0, 2])
    # values Paddle 3.3 gives
    np.testing.assert_array_equal(rt.index_add(x, i, 0, v, 2.5).numpy(), [[3.5, 6.0], [1.0, 1.0], [8.5, 11.0]])
    np.testing.assert_array_equal(x.index_add(i, 0, v, alpha=0.1).numpy(),
                                  np.array([[1.1, 1.2], [1.0, 1.0], [1.3, 1.4]], "float32"))
    p = rt.create_parameter([2], "float32")
    rt.optimizer.Adam(0.1, parameters=[p], use_multi_tensor=True, amsgrad=False)
    with pytest.raises(NotImplementedError, match="amsgrad"):
        rt.optimizer.AdamW(0.1, parameters=[p], amsgrad=True)


def test_pad_default_data_format_and_tensor_mm_keywords():
    import runtime.nn.functional as F
    x = rt.arange(6, dtype="float32").reshape([1, 2, 3])
    # Paddle's data_format=None: channels first by rank (NCL here)
    np.testing.assert_array_equal(F.pad(x, [1, 2], mode="reflect", data_format=None).numpy(),
                                  [[[1, 0, 1, 2, 1, 0], [4, 3, 4, 5, 4, 3]]])
    a, b = rt.ones([2, 3]), rt.ones([3, 2])
    np.testing.assert_array_equal(a.mm(mat2=b).numpy(), [[3.0, 3.0], [3.0, 3.0]])


def test_embedding_keeps_paddle2_order_and_refuses_max_norm():
    emb = rt.nn.Embedding(4, 2, 0, False, None, max_norm=None, scale_grad_by_freq=False)
    assert emb(rt.to_tensor([0, 3])).numpy()[0].tolist() == [0.0, 0.0]  # padding_idx=0 row
    with pytest.raises(NotImplementedError, match="max_norm"):
        rt.nn.functional.embedding(rt.to_tensor([1]), emb.weight, max_norm=1.0)


def test_var_correction_mean_dtype_searchsorted_side_sorter_silu_inplace():
    x = rt.to_tensor([1.0, 2.0, 4.0, 8.0])
    # values Paddle 3.3 gives (to float32 rounding)
    np.testing.assert_allclose(rt.var(x, correction=0).numpy(), 7.1875)
    np.testing.assert_allclose(x.var(correction=2).numpy(), 14.375)
    np.testing.assert_allclose(rt.var(x, None, False).numpy(), 7.1875)
    with pytest.raises(ValueError, match="only one"):
        rt.var(x, unbiased=True, correction=0)
    assert float(rt.mean(rt.to_tensor([1, 2]), dtype="float32")) == 1.5
    s = rt.to_tensor([3.0, 1.0, 2.0])
    got = rt.searchsorted(s, rt.to_tensor([2.0, 2.5]), side="right", sorter=rt.to_tensor([1, 2, 0]))
    np.testing.assert_array_equal(got.numpy(), [2, 2])
    y = rt.to_tensor([1.0, -2.0])
    assert rt.nn.functional.silu(y, True) is y
    np.testing.assert_allclose(y.numpy(), [0.7310586, -0.23840587], rtol=1e-6)


def test_dropout_keeps_paddle2_order_and_refuses_inplace():
    x = rt.ones([4])
    np.testing.assert_array_equal(rt.nn.functional.dropout(x, 0.5, None, False).numpy(), [1.0] * 4)  # eval
    assert rt.nn.Dropout(0.5, None, "upscale_in_train", inplace=False).p == 0.5
    with pytest.raises(NotImplementedError, match="inplace"):
        rt.nn.Dropout(0.5, inplace=True)


def test_norm_and_conv_affine_keywords():
    ln = rt.nn.LayerNorm(4, elementwise_affine=False)
    assert ln.weight is None and ln.bias is None
    np.testing.assert_allclose(ln(rt.to_tensor([[1.0, 2.0, 3.0, 4.0]])).numpy(),
                               [[-1.3416355, -0.44721183, 0.44721183, 1.3416355]], rtol=1e-5)
    ln = rt.nn.LayerNorm(4, bias=False)
    assert ln.weight is not None and ln.bias is None
    gn = rt.nn.GroupNorm(2, 4, affine=False)
    assert gn.weight is None and gn.bias is None
    assert all(c(1, 2, 3, bias=False).bias is None for c in (rt.nn.Conv1D, rt.nn.Conv2D, rt.nn.Conv3D))
