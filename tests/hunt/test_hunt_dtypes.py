"""Mixed dtypes in concat/stack promote like the binary operators; bool cumsum counts."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def _cat(a, b):
    return rt.concat([a, b]), rt.stack([a, b])


@pytest.mark.parametrize("da,db,want", [("int32", "float32", "float32"), ("int64", "int32", "int64"),
                                        ("bool", "int32", "int32"), ("float32", "float64", "float64")])
def test_concat_and_stack_promote_mixed_dtypes_eager_and_converted(da, db, want):
    a = rt.to_tensor(np.array([1], da))
    b = rt.to_tensor(np.array([2], db))
    sf = dy2st.to_static(_cat)
    for cat, st in (_cat(a, b), sf(a, b)):
        assert cat.dtype == want and st.dtype == want
        np.testing.assert_array_equal(cat.numpy(), np.array([1, 2], want))


def test_concat_promoted_gradients_keep_input_dtypes():
    x = rt.to_tensor([1.0], stop_gradient=False)
    y = rt.to_tensor(np.array([2.0]), stop_gradient=False)
    rt.concat([x, y]).sum().backward()
    assert x.grad.dtype == "float32" and y.grad.dtype == "float64"


def _running_count(m):
    return rt.cumsum(m, axis=0)


def test_bool_cumsum_counts_eager_and_converted():
    m = rt.to_tensor([True, False, True, True])
    assert _running_count(m).numpy().tolist() == [1, 1, 2, 3]
    assert dy2st.to_static(_running_count)(m).numpy().tolist() == [1, 1, 2, 3]


def _uses_size(x):
    if hasattr(x, "size"):
        return x * x.size
    return x


def test_converted_values_have_size_like_eager_tensors():
    sf = dy2st.to_static(_uses_size)
    for n in (2, 3):
        x = rt.to_tensor(np.ones(n, "float32"))
        np.testing.assert_array_equal(sf(x).numpy(), _uses_size(x).numpy())


def _size_of_unknown(x):
    return x.sum() * 0 + x.size


def test_size_of_an_unknown_dim_is_computed_per_call():
    sf = dy2st.to_static(_size_of_unknown, input_spec=[dy2st.InputSpec([None, 3], "float32")])
    for n in (1, 4):
        assert int(sf(rt.to_tensor(np.ones((n, 3), "float32")))) == 3 * n
