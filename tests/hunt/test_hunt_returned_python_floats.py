"""A converted function returning a Python float computed when the Program runs (`float(x.sum()) / 3`,
a float carried through a tensor loop, an int divided by an int) returned it as a 0-d float32 tensor:
eager's `0.6000000099341074` came back as `0.6` in float32 (`0.60000002384...`), off in the 8th digit.
Such a value now comes back as a 0-d float64 tensor holding eager's double exactly (as a Python int
comes back int64 and a bool a bool tensor); numpy scalars (`x.numpy()[0]`) keep their float32."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec


def scaled(x):
    return float(x.sum()) / 3


def carried(x, n):
    acc = 0.1
    i = 0
    while i < n:  # a tensor loop: acc is carried as a Python float
        acc = acc + float(x.mean()) / 7
        i += 1
    return acc


def branched(x):
    v = 0.25
    if x.mean() > 0:  # a tensor `if`: v is a Python float on both paths
        v = float(x.max()) / 3
    return x * 2, {"v": v, "item": x.sum().item() * 1.1}


def ratio(x):
    return x.shape[0] / 3  # Python ints known when the Program runs: a true division


def numpy_item(x):
    return x.numpy()[0, 0] * 3  # a numpy float32 scalar eagerly


def _same(got, want):
    if isinstance(want, float):
        assert isinstance(got, rt.Tensor) and got.dtype == "float64" and got.shape == []
        assert got.item() == want  # eager's double, bit for bit
    elif isinstance(want, np.floating):
        assert got.dtype == "float32" and got.item() == want
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, tuple):
        for a, b in zip(got, want):
            _same(a, b)
    else:
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("fn, extra", [(scaled, ()), (carried, (rt.to_tensor(3),)), (branched, ()),
                                       (numpy_item, ())])
def test_a_returned_python_float_keeps_eager_doubles(fn, extra):
    sf = dy2st.to_static(fn)
    rounded = []
    for seed in (0, 1, 2):
        x = rt.to_tensor(np.random.default_rng(seed).uniform(-1, 2, (4, 3)).astype("float32"))
        want = fn(x, *extra)
        _same(sf(x, *extra), want)
        rounded.append(scaled(x) != float(np.float32(scaled(x))))
    assert any(rounded)  # a float32 answer would differ from eager's
    assert len(sf.program_cache) == 1


def test_an_int_ratio_of_run_time_dims_and_a_saved_model(tmp_path):
    sf = dy2st.to_static(ratio, input_spec=[InputSpec([None, 3], "float32", "x")])
    for rows in (2, 5, 7):
        x = rt.ones([rows, 3])
        _same(sf(x), ratio(x))
    dy2st.save(dy2st.to_static(scaled, input_spec=[InputSpec([None, 3], "float32", "x")]), str(tmp_path / "m"))
    loaded = dy2st.load(str(tmp_path / "m"))
    x = rt.to_tensor(np.random.default_rng(5).uniform(-1, 2, (6, 3)).astype("float32"))
    _same(loaded(x), scaled(x))
