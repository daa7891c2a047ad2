"""Tensor.gradient/set_value/clone/detach on the values a converted function sees, as eagerly."""
import numpy as np
import pytest

import dy2st
import runtime as rt


def uses_methods(x):
    y = x * 2
    g = y.gradient()
    z = y.clone()
    z.set_value(np.ones((2,), "float32"))
    d = y.detach()
    return y + z + d, g is None


@pytest.mark.parametrize("v", [[1.0, 2.0], [-3.0, 0.5]])
def test_methods_match_eager(v):
    sf = dy2st.to_static(uses_methods)
    got, got_none = sf(rt.to_tensor(v))
    want, want_none = uses_methods(rt.to_tensor(v))
    np.testing.assert_allclose(got.numpy(), want.numpy())
    assert got_none is want_none is True
    assert len(sf.program_cache) == 1


def test_set_value_checks_shape_and_dtype():
    def bad_shape(x):
        y = x * 2
        y.set_value(np.ones((3,), "float32"))
        return y

    def bad_dtype(x):
        y = x * 2
        y.set_value(np.ones((2,), "int64"))
        return y
    with pytest.raises(ValueError, match="shape"):
        dy2st.to_static(bad_shape)(rt.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="dtype"):
        dy2st.to_static(bad_dtype)(rt.to_tensor([1.0, 2.0]))


def test_parameter_gradient_inside_a_program_is_refused():
    lin = rt.nn.Linear(2, 2)

    class Net(rt.nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = lin

        def forward(self, x):
            g = self.lin.weight.gradient()
            return self.lin(x) if g is None else self.lin(x) * 2

    with pytest.raises(TypeError, match="gradient"):
        dy2st.to_static(Net())(rt.to_tensor([[1.0, 2.0]]))
