"""Generated names carry roles from the namer; nothing decides by a name's spelling."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st.pyct import naming
from dy2st.conversion.transform import transform_function


def test_namer_records_roles_and_avoids_user_names():
    namer = naming.Namer({"return_value_0"})
    name = namer.new("return_value", naming.RETURN_VALUE)
    assert name == "return_value_1"
    assert namer.role_of(name) == naming.RETURN_VALUE and namer.role_of("return_value_0") is None
    assert namer.with_role(["x", name], naming.RETURN_VALUE) == [name]


def early_returns(x):
    if x.mean() > 0:
        return x, x
    return x


def test_return_structure_mismatch_names_the_return_value():
    sf = dy2st.to_static(early_returns)
    with pytest.raises(ValueError, match="the function's return value"):
        sf(rt.to_tensor(np.ones(3, "float32")))


def user_named_like_a_flag(x):
    return_value_0 = x * 2.0   # a user variable spelled like a generated name is just a variable
    did_break_0 = x + 1.0
    if x.mean() > 0:
        return return_value_0 + did_break_0
    return return_value_0


def test_generated_names_have_no_double_underscores_and_no_clash():
    source = transform_function(user_named_like_a_flag).source
    assert "__" not in source.replace("__jst", "")
    assert "return_value_1" in source
    sf = dy2st.to_static(user_named_like_a_flag)
    for v in (1.0, -1.0):
        x = np.full(3, v, "float32")
        np.testing.assert_allclose(sf(rt.to_tensor(x)).numpy(), user_named_like_a_flag(rt.to_tensor(x)).numpy())
