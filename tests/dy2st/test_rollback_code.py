"""`rollback()` on a decorated non-forward method restores it; `.code` of a `not_to_static`
function shows the original source."""
import numpy as np

import dy2st
import runtime as rt


class WithHelper(rt.nn.Layer):
    @dy2st.to_static
    def helper(self, x):
        if x.sum() > 0:
            return x * 2
        return x

    @dy2st.to_static
    def forward(self, x):
        return self.helper(x) + 1


def test_rollback_restores_decorated_methods():
    m = WithHelper()
    x = rt.to_tensor([1.0, 2.0])
    assert hasattr(m.helper, "program_cache")
    original = m.helper.rollback()
    assert not hasattr(m.helper, "program_cache") and m.helper == original
    np.testing.assert_allclose(m.helper(x).numpy(), [2.0, 4.0])
    m.forward.rollback()
    assert not hasattr(m.forward, "program_cache")
    np.testing.assert_allclose(m(x).numpy(), [3.0, 5.0])
    other = WithHelper()  # other instances keep their converted methods
    assert hasattr(other.helper, "program_cache")


def test_rollback_of_to_static_layer():
    layer = rt.nn.Linear(2, 2)
    static = dy2st.to_static(layer)
    assert hasattr(static.forward, "program_cache")
    static.forward.rollback()
    assert not hasattr(layer.forward, "program_cache")


@dy2st.not_to_static
def kept(x):
    if x.sum() > 0:
        return x
    return -x


def test_code_of_not_to_static_function_is_the_original():
    code = dy2st.to_static(kept).code
    assert "if x.sum() > 0:" in code and "_jst" not in code
