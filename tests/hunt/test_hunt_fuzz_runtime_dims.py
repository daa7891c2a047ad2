"""Found by the fuzzer's ``runtime_dims`` grammar (seed 9205 of all new features): an in-place
method on a tensor reshaped to ``[len(x), -1]`` in a model saved with an unknown batch dim refused
at save time, "add_ would change the tensor's shape from [-1, -1] to [-1, 4]": the dims known on
one side only are equal at run time. The shapes are now compared where both are known and the rest
is checked when the Program runs, raising eager's ValueError where eager raises it."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _reshaped_then_added(x):  # the fuzzer's minimal program
    y = x * 0.77 + 0.56
    b = len(x)
    y = rt.reshape(rt.transpose(rt.reshape(y, [b, 2, 2]), [0, 2, 1]), [b, -1]) * 0.8
    y.add_(x * -0.12)
    return y


def _added(x, v):
    y = rt.reshape(x * 1.0, [len(x), -1])
    y.add_(v)
    return y


def test_an_in_place_method_on_run_time_dims_saves_and_matches_eager(tmp_path):
    prefix = str(tmp_path / "m")
    dy2st.save(dy2st.to_static(_reshaped_then_added), prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    loaded = dy2st.load(prefix)
    for b in (3, 5):
        xv = np.random.default_rng(b).standard_normal((b, 4)).astype("float32")
        np.testing.assert_array_equal(loaded(rt.to_tensor(xv)).numpy(), _reshaped_then_added(rt.to_tensor(xv)).numpy())


def test_a_broadcast_in_place_is_refused_at_run_time_as_eagerly():
    sf = dy2st.to_static(_added, input_spec=[InputSpec([None, None], "float32", "x"), InputSpec([None, 4], "float32", "v")])
    np.testing.assert_array_equal(sf(rt.ones([2, 4]), rt.ones([2, 4])).numpy(), np.full([2, 4], 2.0, "float32"))
    for fn in (_added, sf):
        with pytest.raises(ValueError, match=r"add_ would change the tensor's shape"):
            fn(rt.ones([3, 1]), rt.ones([3, 4]))
