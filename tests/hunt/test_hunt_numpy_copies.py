"""Tensor.numpy() hands back a new array, as Paddle's: writing into it (``pred = out.numpy(); pred[pred < 0]
= 0``) used to change the tensor, a parameter too, silently.  np.array(t) copies (numpy's protocol:
copy=True), np.asarray(t) shares the tensor's array for reading without a copy."""
import numpy as np

import dy2st
import runtime as rt


def test_writing_into_numpy_leaves_the_tensor_and_parameters_alone():
    t = rt.to_tensor([1.0, -2.0, 3.0])
    a = t.numpy()
    a[a < 0] = 0.0
    np.testing.assert_array_equal(t.numpy(), [1.0, -2.0, 3.0])
    lin = rt.nn.Linear(2, 2)
    before = lin.weight.numpy()
    lin.weight.numpy()[:] = 0.0
    np.testing.assert_array_equal(lin.weight.numpy(), before)
    b = np.array(t)
    b[0] = 9.0
    assert float(t[0]) == 1.0
    assert np.shares_memory(np.asarray(t), np.asarray(t))


def test_converted_outputs_and_numpy_in_converted_code():
    @dy2st.to_static
    def f(x):
        if x.numpy().sum() > 0 if False else x.sum() > 0:
            y = x * 2
        else:
            y = -x
        return y

    for v in ([1.0, 2.0], [-3.0, 1.0]):
        out = f(rt.to_tensor(v))
        arr = out.numpy()
        arr[:] = 0.0
        assert np.abs(out.numpy()).sum() > 0
    assert f.get_traced_count() == 1
