"""`y = x.squeeze(0)` where dim 0 is None in the InputSpec: the Program takes the dim as 1 (Paddle's
rule, the result's rank is fixed when it is built), but eager keeps a dim of another size. With a
batch of 2 the converted function and the saved model returned `y.shape[0] == 3` and
`len(y.shape) == 1` where eager gives 2 and 2, silently. The Program now checks that the dim is 1
when it runs, and raises a ValueError at the user's line otherwise. Likewise `x.squeeze()` keeps an
unknown dim in the Program (rank 2 for a [None, 1, 3] input) where eager drops it for a batch of 1
(`len(y.shape)` was 2, eager 1): the Program checks that such a dim is not 1."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec


def shape_of_squeezed(x):
    y = x.squeeze(0)
    return y.shape[0], len(y.shape), y.sum(-1)


def squeeze_known(x):
    return x.squeeze(1).sum(-1), rt.squeeze(x, [1, 2]).shape[0]


SPEC = [InputSpec([None, 3], "float32", "x")]


def test_a_batch_of_one_squeezes_as_eager(tmp_path):
    fn = dy2st.to_static(shape_of_squeezed, input_spec=SPEC)
    dy2st.save(fn, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    x = rt.to_tensor(np.arange(3, dtype="float32").reshape(1, 3))
    want = shape_of_squeezed(x)
    for got in (fn(x), loaded(x)):
        assert int(got[0]) == want[0] and int(got[1]) == want[1]
        np.testing.assert_allclose(got[2].numpy(), want[2].numpy())


def test_another_batch_size_raises_at_the_squeeze(tmp_path):
    fn = dy2st.to_static(shape_of_squeezed, input_spec=SPEC)
    dy2st.save(fn, str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    x = rt.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    assert shape_of_squeezed(x)[:2] == (2, 2)  # eager keeps the dim
    with pytest.raises(ValueError, match=r"squeeze\(axis=\[0\]\).*not 1") as info:
        fn(x)
    assert "y = x.squeeze(0)" in "\n".join([str(info.value), *getattr(info.value, "__notes__", [])])
    with pytest.raises(ValueError, match="squeeze"):
        loaded(x)


def test_a_known_dim_needs_no_check():
    fn = dy2st.to_static(squeeze_known, input_spec=[InputSpec([None, 1, 1], "float32")])
    for n in (1, 3):
        x = rt.to_tensor(np.arange(n, dtype="float32").reshape(n, 1, 1))
        got, want = fn(x), squeeze_known(x)
        np.testing.assert_allclose(got[0].numpy(), want[0].numpy())
        assert int(got[1]) == want[1]
    assert all(op.type != "assert" for op in fn.concrete_program.main_program.global_block().ops)


def squeeze_all(x):
    y = x.squeeze()
    return len(y.shape), y.sum(-1)


def test_squeeze_all_keeps_an_unknown_dim_only_when_it_is_not_one():
    fn = dy2st.to_static(squeeze_all, input_spec=[InputSpec([None, 1, 3], "float32")])
    x = rt.to_tensor(np.arange(6, dtype="float32").reshape(2, 1, 3))
    got, want = fn(x), squeeze_all(x)
    assert int(got[0]) == want[0] == 2
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy())
    one = rt.to_tensor(np.arange(3, dtype="float32").reshape(1, 1, 3))
    assert squeeze_all(one)[0] == 1  # eager drops the batch dim
    with pytest.raises(ValueError, match=r"squeeze\(\).*at run time one is 1"):
        fn(one)
