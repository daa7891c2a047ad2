"""Eager Tensor behaviour: dtypes and promotion, operators, indexing, autograd, errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt


# -- to_tensor and dtypes ---------------------------------------------------------------------------
@pytest.mark.parametrize("data,dtype", [(1.5, "float32"), ([1, 2], "int64"), (True, "bool"),
                                        ([[1.0, 2.0]], "float32"), (np.arange(3, dtype=np.int32), "int32"),
                                        (np.ones(2), "float64")])
def test_to_tensor_dtype_defaults(data, dtype):
    t = rt.to_tensor(data)
    assert t.dtype == dtype and t.dtype == getattr(rt, dtype)
    assert t.stop_gradient


def test_to_tensor_copies_and_casts():
    a = np.ones(3, np.float32)
    t = rt.to_tensor(a, dtype="float64", stop_gradient=False)
    a[0] = 5
    assert t.dtype == "float64" and t.numpy()[0] == 1 and not t.stop_gradient


@pytest.mark.parametrize("x,y,want", [
    (rt.to_tensor([1, 2]), 2, "int64"),
    (rt.to_tensor([1, 2]), 2.5, "float32"),
    (rt.to_tensor([1.0, 2.0], dtype="float64"), 2.5, "float64"),
    (rt.to_tensor([1.0, 2.0]), 3, "float32"),
    (rt.to_tensor([1.0]), rt.to_tensor([1]), "float32"),
    (rt.to_tensor([1], dtype="int32"), rt.to_tensor([1]), "int64"),
    (rt.to_tensor([1], dtype="int32"), 7, "int32"),
])
def test_dtype_promotion(x, y, want):
    assert (x + y).dtype == want
    assert (y + x).dtype == want
    assert (x * y).dtype == want


def test_operators_with_scalars_and_arrays_on_either_side():
    x = rt.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.array([[2.0, 2.0], [2.0, 2.0]], np.float32)
    v = x.numpy()
    cases = [(x + 1, v + 1), (1 + x, 1 + v), (x - 1, v - 1), (1 - x, 1 - v), (x * 2, v * 2), (2 * x, 2 * v),
             (x / 2, v / 2), (2 / x, 2 / v), (x // 2, v // 2), (7 // x, 7 // v), (x % 3, v % 3), (7 % x, 7 % v),
             (x ** 2, v ** 2), (2 ** x, 2 ** v), (x @ x, v @ v), (-x, -v), (abs(-x), v),
             (x + a, v + a), (a + x, a + v), (a - x, a - v), (a * x, a * v), (a @ x, a @ v)]
    for got, want in cases:
        assert isinstance(got, rt.Tensor)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_comparisons_and_bool_ops():
    x = rt.to_tensor([1, 2, 3])
    assert (x < 2).dtype == "bool"
    np.testing.assert_array_equal((x < 2).numpy(), [True, False, False])
    np.testing.assert_array_equal((x <= 2).numpy(), [True, True, False])
    np.testing.assert_array_equal((x > 2).numpy(), [False, False, True])
    np.testing.assert_array_equal((x >= 2).numpy(), [False, True, True])
    np.testing.assert_array_equal((x == 2).numpy(), [False, True, False])
    np.testing.assert_array_equal((x != 2).numpy(), [True, False, True])
    np.testing.assert_array_equal(((x > 1) & (x < 3)).numpy(), [False, True, False])
    np.testing.assert_array_equal(((x < 2) | (x > 2)).numpy(), [True, False, True])
    np.testing.assert_array_equal((~(x > 1)).numpy(), [True, False, False])
    np.testing.assert_array_equal(((x > 1) ^ (x > 2)).numpy(), [False, True, False])
    assert len({x, x, rt.to_tensor([1, 2, 3])}) == 2  # hash by identity


def test_conversions():
    t = rt.to_tensor([[3.5]])
    assert float(t) == 3.5 and int(t) == 3 and bool(t)
    assert np.asarray(t).dtype == np.float32
    n = rt.to_tensor(4)
    assert list(range(n)) == [0, 1, 2, 3]
    assert [10, 20, 30][rt.to_tensor(1)] == 20
    with pytest.raises(TypeError):
        float(rt.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        range(rt.to_tensor(2.0))
    assert t.item() == 3.5 and t.astype("int64").dtype == "int64"


# -- indexing ------------------------------------------------------------------------------------------
def test_indexing_matches_numpy():
    v = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = rt.to_tensor(v)
    for key in [0, -1, (1, 2), slice(1, 3), (slice(None), slice(1, 3)), (Ellipsis, 1), (None, 0),
                (0, None, slice(None, None, 2)), (slice(None, None, -1),), (1, Ellipsis, None)]:
        np.testing.assert_array_equal(x[key].numpy(), v[key], err_msg=str(key))
    i = rt.to_tensor(2)
    np.testing.assert_array_equal(x[i].numpy(), v[2])
    idx = rt.to_tensor([2, 0, 2])
    np.testing.assert_array_equal(x[:, idx].numpy(), v[:, [2, 0, 2]])
    mask = x > 30
    np.testing.assert_array_equal(x[mask].numpy(), v[v > 30])
    np.testing.assert_array_equal(x[[0, 2]].numpy(), v[[0, 2]])


def test_indexing_gradient_accumulates_repeats():
    x = rt.to_tensor(np.arange(4.0, dtype=np.float32), stop_gradient=False)
    y = x[rt.to_tensor([1, 1, 3])].sum() + x[0:2].sum() * 2
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 4, 0, 1])


def test_setitem_eager():
    x = rt.zeros([2, 3])
    x[0, 1] = 5.0
    x[1] = rt.to_tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.numpy(), [[0, 5, 0], [1, 2, 3]])
    w = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    y = w * 1
    y[0] = w[1] * 3
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0, 4])
    with pytest.raises(RuntimeError, match="in place"):
        w[0] = 1.0


# -- autograd ---------------------------------------------------------------------------------------------
def test_grad_accumulates_and_clears():
    w = rt.to_tensor([1.0, 2.0], stop_gradient=False)
    (w * w).sum().backward()
    (w * 3).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [5, 7])
    w.clear_grad()
    assert w.grad is None
    (w.mean()).backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.5, 0.5])


def test_no_grad_and_detach():
    w = rt.to_tensor([1.0], stop_gradient=False)
    with rt.no_grad():
        assert (w * 2).stop_gradient

    @rt.no_grad()
    def f(t):
        return t * 2
    assert f(w).stop_gradient
    assert not (w * 2).stop_gradient
    d = w.detach()
    assert d.stop_gradient and (d * 2).stop_gradient


def test_method_table_mirrors_functions():
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = rt.to_tensor(v)
    np.testing.assert_allclose(x.sum(axis=1).numpy(), v.sum(1))
    assert x.reshape([3, -1]).shape == [3, 2]
    np.testing.assert_allclose(x.mean().numpy(), v.mean())
    assert x.transpose([1, 0]).shape == [3, 2] and x.T.shape == [3, 2]
    assert x.max(axis=0, keepdim=True).shape == [1, 3]
    assert x.argmax(axis=1).numpy().tolist() == [2, 2]
    assert x.unsqueeze(0).shape == [1, 2, 3] and x.unsqueeze(0).squeeze().shape == [2, 3]
    assert x.flatten().shape == [6]
    assert [t.shape for t in x.split(3, axis=1)] == [[2, 1]] * 3
    np.testing.assert_allclose(x.exp().log().numpy(), v, atol=1e-5)
    np.testing.assert_allclose(x.clip(1, 4).numpy(), v.clip(1, 4))
    assert x.topk(2)[0].shape == [2, 2]
    np.testing.assert_allclose(rt.shape(x).numpy(), [2, 3])
    assert int(rt.numel(x)) == 6


def test_creation_functions():
    assert rt.zeros([2, 3]).dtype == "float32" and rt.ones([2], dtype="int64").numpy().tolist() == [1, 1]
    assert rt.full([2], 7).numpy().tolist() == [7.0, 7.0]
    assert rt.arange(5).dtype == "int64" and rt.arange(0, 1, 0.25).numpy().tolist() == [0, 0.25, 0.5, 0.75]
    assert rt.linspace(0, 1, 3).numpy().tolist() == [0, 0.5, 1]
    assert rt.eye(2).numpy().tolist() == [[1, 0], [0, 1]]
    x = rt.to_tensor([[1, 2]])
    assert rt.zeros_like(x).dtype == "int64" and rt.ones_like(x, dtype="float32").dtype == "float32"
    assert rt.full_like(x, 3).numpy().tolist() == [[3, 3]]
    rt.seed(3)
    a = rt.rand([2, 2]).numpy()
    rt.seed(3)
    np.testing.assert_array_equal(a, rt.rand([2, 2]).numpy())
    assert rt.randn([3]).dtype == "float32"
    r = rt.randint(0, 5, [100]).numpy()
    assert r.dtype == np.int64 and r.min() >= 0 and r.max() < 5


# -- errors -------------------------------------------------------------------------------------------------
def test_clear_errors():
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[4, 5\]"):
        rt.matmul(rt.ones([2, 3]), rt.ones([4, 5]))
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[4, -1\]"):
        rt.ones([2, 3]).reshape([4, -1])
    with pytest.raises(ValueError, match=r"\[2, 3\].*\[1, 5\]"):
        rt.ones([2, 3]) + rt.ones([5])


# -- property tests -------------------------------------------------------------------------------------------
_arrays = hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                     elements=st.floats(-10, 10, width=32))


@settings(max_examples=30, deadline=None)
@given(_arrays, st.integers(-3, 2), st.booleans())
def test_reductions_match_numpy(v, axis, keepdim):
    axis = axis % v.ndim
    x = rt.to_tensor(v)
    np.testing.assert_allclose(rt.sum(x, axis=axis, keepdim=keepdim).numpy(), v.sum(axis, keepdims=keepdim),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(rt.max(x, axis=axis, keepdim=keepdim).numpy(), v.max(axis, keepdims=keepdim))
    np.testing.assert_allclose(rt.cumsum(x, axis=axis).numpy(), np.cumsum(v, axis), rtol=1e-5, atol=1e-4)


@settings(max_examples=30, deadline=None)
@given(_arrays, st.data())
def test_slicing_matches_numpy(v, data):
    key = tuple(slice(data.draw(st.integers(-4, 4) | st.none()), data.draw(st.integers(-4, 4) | st.none()),
                      data.draw(st.sampled_from([None, 1, 2, -1]))) for _ in range(v.ndim))
    np.testing.assert_array_equal(rt.to_tensor(v)[key].numpy(), v[key])
