"""Found writing the fuzzer's ``shape_logic`` grammar: ``y.repeat_interleave(4 // k, axis=1)`` with
``k = 1 if y.shape[0] > 4 else 2`` (a Python int eagerly) refused in a model saved with an unknown
batch dim, "the length of repeats (1) must be the size of dim 1 of x (2)": ``k`` is a Variable
there, which repeat_interleave took for a tensor of per-slice counts.  A Variable standing for a
Python int (``Variable.python_number``) is now one count for every slice, as the int is eagerly.
And ``rt.flip`` on an axis such an int gives, which no Program can know when it is built, is refused
as that (it said the axis was out of range)."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from error_helpers import notes
from runtime.static import InputSpec


def _count_a_dim_picks(x):
    k = 1 if x.shape[0] > 4 else 2
    return x.reshape([-1, k, 4 // k]).sum(axis=-1).repeat_interleave(4 // k, axis=1) * 0.5


def _flattened(x):
    return rt.repeat_interleave(x[:, :2], x.shape[0] - 1)


@pytest.mark.parametrize("fn", [_count_a_dim_picks, _flattened])
def test_a_python_int_count_repeats_every_slice_when_saved_with_an_unknown_batch_dim(fn, tmp_path):
    prefix = str(tmp_path / "m")
    dy2st.save(dy2st.to_static(fn), prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    loaded = dy2st.load(prefix)
    for b in (3, 5, 2):
        xv = np.random.default_rng(b).standard_normal((b, 4)).astype("float32")
        want = fn(rt.to_tensor(xv)).numpy()
        got = loaded(rt.to_tensor(xv)).numpy()
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_a_tensor_of_counts_still_gives_one_count_per_slice():
    x = rt.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    got = rt.repeat_interleave(x, rt.to_tensor([1, 0, 2]), axis=0).numpy()
    np.testing.assert_array_equal(got, np.repeat(x.numpy(), [1, 0, 2], axis=0))
    with pytest.raises(ValueError, match="length of repeats"):
        rt.repeat_interleave(x, rt.to_tensor(2), axis=0)  # a 0-d tensor is not an int (Paddle refuses it too)


def _flipped_on_an_axis_a_dim_picks(x):
    k = 1 if x.shape[0] > 4 else 0
    return rt.flip(x, [k])


def test_an_axis_known_only_when_the_program_runs_is_refused_as_such_at_the_line(tmp_path):
    # (it said "flip: axis var cond_out_0 : int64[] is out of range for a tensor of rank 2")
    xv = np.ones((3, 4), "float32")
    np.testing.assert_array_equal(dy2st.to_static(_flipped_on_an_axis_a_dim_picks)(rt.to_tensor(xv)).numpy(), xv)
    with pytest.raises(TypeError, match="flip: axis must be a Python int when building a static Program") as e:
        dy2st.save(dy2st.to_static(_flipped_on_an_axis_a_dim_picks), str(tmp_path / "m"),
                   input_spec=[InputSpec([None, 4], "float32", "x")])
    assert "return rt.flip(x, [k])" in notes(e.value)


def _rows_by_comprehension(x):
    return rt.stack([x[j] * 0.5 for j in range(x.shape[0])])


def test_a_comprehension_over_a_range_of_a_run_time_dim_is_refused_naming_the_way_out(tmp_path):
    # (a `for` statement over the same range is a loop op; a comprehension must know its length)
    xv = np.ones((3, 4), "float32")
    np.testing.assert_array_equal(dy2st.to_static(_rows_by_comprehension)(rt.to_tensor(xv)).numpy(), xv * 0.5)
    with pytest.raises(TypeError, match=r"range\(\) outside a `for` statement: a comprehension.*loop with a `for`") as e:
        dy2st.save(dy2st.to_static(_rows_by_comprehension), str(tmp_path / "m"),
                   input_spec=[InputSpec([None, 4], "float32", "x")])
    assert "for j in range(x.shape[0])" in notes(e.value)
