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
