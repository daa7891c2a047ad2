"""Paddle's test_tensor_attr_consistency, rewritten: the public attributes of an eager Tensor and of
the value converted code computes with (a static Variable) agree, but for allow lists of
attributes only one side has, as Paddle's test keeps for its Tensor and ``pir.Value``. Every
op-backed method, property and operator is on both sides, so converted code reaches the same
names as eager code. Of the eager-only ones, `is_leaf` (also eager-only in Paddle) read in
converted code raises AttributeError at the user's line, saying why and what converts."""
import numpy as np
import pytest
from error_helpers import line_of, notes

import dy2st
import runtime as rt
import runtime.static  # noqa: F401  (rt.static.data)

# Eager-only: the numpy protocol and int() (converted code casts instead), the constructors of
# eager tensors, and the slot names `copy` caches on the class once a Tensor was copied.
DYGRAPH_ONLY_TENSOR_ATTRS_ALLOW_LIST = {"__array__", "__int__", "from_numpy", "wrap_source", "__slotnames__"}
# Static-only: the Block a value lives in and its role there.
STATIC_ONLY_TENSOR_ATTRS_ALLOW_LIST = {"__dict__", "block", "is_data", "kind", "python_number", "to_string"}


def is_magic_method(attr):
    return attr.startswith("__") and attr.endswith("__")


def get_public_attributes(obj):
    return {attr for attr in dir(obj) if not attr.startswith("_") or is_magic_method(attr)}


def _tensor_and_value():
    rt.enable_static()
    try:
        with rt.static.program_guard(rt.static.Program()):  # not the default Program other code uses
            value = rt.static.data("x", [2, 3], "float32")
    finally:
        rt.disable_static()
    return rt.ones([2, 3]), value


def test_dygraph_tensor_attr_consistency_check():
    tensor, value = _tensor_and_value()
    dygraph_only = get_public_attributes(tensor) - get_public_attributes(value)
    assert dygraph_only - DYGRAPH_ONLY_TENSOR_ATTRS_ALLOW_LIST == set(), (
        f"a traced value should have the attributes of a Tensor; only the Tensor has {dygraph_only}")


def test_static_tensor_attr_consistency_check():
    tensor, value = _tensor_and_value()
    static_only = get_public_attributes(value) - get_public_attributes(tensor)
    assert static_only - STATIC_ONLY_TENSOR_ATTRS_ALLOW_LIST == set(), (
        f"a Tensor should have the attributes of a traced value; only the value has {static_only}")


def reads_is_leaf(x):
    y = x * 2
    if y.is_leaf:
        return y
    return y + 1


def test_is_leaf_in_converted_code_is_refused_at_the_users_line():
    x = rt.to_tensor(np.ones(2, "float32"), stop_gradient=False)
    assert x.is_leaf and not (x * 2).is_leaf
    np.testing.assert_array_equal(reads_is_leaf(x).numpy(), [3.0, 3.0])
    with pytest.raises(AttributeError, match="is_leaf") as err:
        dy2st.to_static(reads_is_leaf)(x)
    assert "stop_gradient" in str(err.value)
    assert f"line {line_of(reads_is_leaf, 'if y.is_leaf:')}" in notes(err.value)
