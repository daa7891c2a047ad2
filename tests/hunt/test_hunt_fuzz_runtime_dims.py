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


def _item_of_a_list_added_in_a_branch(x):  # seed 41155 of all new features, train mode
    y = x * 0.39 - 0.64
    b = len(y)
    x = rt.reshape(rt.transpose(rt.reshape(x, [b, 2, 2]), [0, 2, 1]), [b, -1]) * 0.65
    x, y = y, x * 0.77
    acc = [y, x]
    if y.max() > 0.2:
        acc[0].add_(x * -0.4)
    return y * 0.47, x - 0.51


def test_the_run_time_shape_check_of_a_write_through_a_list_item_is_not_a_stale_read():
    # the check reads the written tensor's shape after the write; the write keeps the shape, so that
    # read is not the stale read of an alias the `if` refuses
    sf = dy2st.to_static(_item_of_a_list_added_in_a_branch, input_spec=[InputSpec([None, 4], "float32", "x")])
    for b, scale in ((3, 3.0), (5, 0.1)):
        x = rt.to_tensor(np.random.default_rng(b).random((b, 4)).astype("float32") * scale)
        for got, want in zip(sf(x), _item_of_a_list_added_in_a_branch(x)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(sf.program_cache) == 1
