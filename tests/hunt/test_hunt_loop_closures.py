"""Functions made in a Python-unrolled loop body: used in their iteration they convert; kept
after the loop with a captured loop variable they see its last value (Python's late binding),
since the loop body binds the variable in the function's closure cell, as eagerly."""
import numpy as np

import dy2st
import runtime as rt


def _late_binding(x):
    fs = []
    for i in range(3):
        fs.append(lambda t: t * i)
    return [f(x) for f in fs]


def _bound_by_default(x):
    fs = []
    for i in range(3):
        fs.append(lambda t, i=i: t * i)
    return fs[0](x) + fs[2](x)


def _used_in_iteration(x, layers):
    for layer in layers:
        x = rt.utils.map_structure(lambda t: layer(t), x)
    return x


def test_closure_kept_after_loop_with_captured_loop_variable_sees_the_last_value():
    x = rt.to_tensor([1.0, 2.0])
    for got, want in zip(dy2st.to_static(_late_binding)(x), _late_binding(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_default_argument_binding_converts_like_eager():
    x = rt.to_tensor([1.0, 2.0])
    np.testing.assert_array_equal(dy2st.to_static(_bound_by_default)(x).numpy(), _bound_by_default(x).numpy())


def test_closure_used_within_its_iteration_converts_like_eager():
    rt.seed(0)
    layers = [rt.nn.Linear(2, 2), rt.nn.Linear(2, 2)]
    x = rt.to_tensor([[1.0, 2.0]])
    np.testing.assert_allclose(dy2st.to_static(_used_in_iteration)(x, layers).numpy(),
                               _used_in_iteration(x, layers).numpy(), rtol=1e-6)
