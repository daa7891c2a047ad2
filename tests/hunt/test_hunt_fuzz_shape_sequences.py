"""Found writing the fuzzer's ``shape_logic`` grammar: `==`/`!=` of tuples or lists holding dims of a
model saved with an unknown batch dim (`b, d = y.shape; if (b, d) == (3, 4):`, `tuple(y.shape) ==
tuple(x.shape)`, `list(y.shape) == [y.shape[0], 4]`) refused at save time: Python compares the items
and asks each `==` for its truth, which a dim known only when the Program runs cannot answer
("the truth value of static Variable 'equal_0' is only known when the Program runs").  Eagerly they
are Python ints.  Such comparisons now compare the items as tensors (a bool the Program computes),
and stay Python's where the known items decide."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec


def _unpacked(x):
    y = x * 0.5
    b, d = y.shape
    if (b, d) == (3, 4):
        y = y + 1.0
    if (d, b) != (4, 5):
        y = y * 3.0
    return y


def _tuples(x):
    y = x[1:] * 2.0
    if tuple(y.shape) == tuple(x.shape):  # never: one row fewer
        return y + 7.0
    if list(y.shape) == [y.shape[0], 4] and [x.shape[0], 4] == list(x.shape):
        y = y - 1.0
    return y


def _decided_by_known_items(x):
    b, d = x.shape
    same = (b, d) == (b, 5)  # d is 4 when the Program is built: False whatever b is
    other = [b, d] != [b, d, 1]
    return x * (2.0 if same else 0.5) + (1.0 if other else 0.0)


@pytest.mark.parametrize("fn", [_unpacked, _tuples, _decided_by_known_items])
def test_sequences_of_dims_compare_as_eagerly_when_saved_with_an_unknown_batch_dim(fn, tmp_path):
    prefix = str(tmp_path / "m")
    dy2st.save(dy2st.to_static(fn), prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    loaded = dy2st.load(prefix)
    for b in (3, 5, 2):
        xv = np.random.default_rng(b).standard_normal((b, 4)).astype("float32")
        np.testing.assert_array_equal(loaded(rt.to_tensor(xv)).numpy(), fn(rt.to_tensor(xv)).numpy())


def test_with_known_dims_the_comparison_stays_python():
    sf = dy2st.to_static(_unpacked)
    for b in (3, 5):
        xv = np.random.default_rng(b).standard_normal((b, 4)).astype("float32")
        np.testing.assert_array_equal(sf(rt.to_tensor(xv)).numpy(), _unpacked(rt.to_tensor(xv)).numpy())
    ops = {op.type for block in sf.concrete_program.main_program.blocks for op in block.ops}
    assert "cond" not in ops and "equal" not in ops


def _lists_of_whole_tensors(x):
    y = x * 2.0
    if [x] == [y]:  # eagerly: the truth of a [B, 4] bool tensor, ambiguous
        return y
    return x


def test_lists_of_whole_tensors_compared_stay_refused_as_eagerly():
    x = rt.to_tensor(np.ones((3, 4), "float32"))
    with pytest.raises(Exception) as eager:
        _lists_of_whole_tensors(x)
    with pytest.raises(type(eager.value)):
        dy2st.to_static(_lists_of_whole_tensors)(x)
