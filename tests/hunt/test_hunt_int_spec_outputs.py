"""Models fed int tensors (InputSpec's default stop_gradient=False, as Paddle's) whose outputs are
floats made from them (`a / b`, a float clip bound, astype) save and load: eagerly such an output
passes the input's stop_gradient=False on, so it is no trainable value made inside the function."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec


def _mixed(a, b):
    return a / b, rt.clip(a, 0.5, 3.7), a.astype("float32") * 2 + b


def _made(a):
    w = rt.to_tensor(a.astype("float32"), stop_gradient=False)  # a leaf made in the function: refused
    return w * 2


def test_float_outputs_of_int_inputs_save_and_load(tmp_path):
    spec = [InputSpec([None], "int32"), InputSpec([None], "int32")]
    dy2st.save(_mixed, str(tmp_path / "m"), input_spec=spec)
    loaded = dy2st.load(str(tmp_path / "m"))
    for a, b in [([1, -3, 7], [2, 2, -3]), ([5, 0], [-4, 1])]:
        a, b = rt.to_tensor(np.array(a, "int32")), rt.to_tensor(np.array(b, "int32"))
        for got, want in zip(loaded(a, b), _mixed(a, b)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_trainable_leaf_made_from_an_int_input_is_still_refused(tmp_path):
    with pytest.raises(TypeError, match="trainable tensor made inside"):
        dy2st.save(_made, str(tmp_path / "g"), input_spec=[InputSpec([3], "int32")])
