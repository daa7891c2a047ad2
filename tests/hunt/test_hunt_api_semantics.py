"""Tensor API results checked against PaddlePaddle 3.3's (expected values recorded from it), eagerly
and in a Program traced with an unknown batch dim then run with another batch size."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _both(fn, specs, *arg_sets):
    """fn's results eagerly and converted (InputSpec ``specs``), for each argument tuple, as numpy."""
    sf = dy2st.to_static(fn, input_spec=specs)
    out = []
    for args in arg_sets:
        pair = []
        for f in (fn, sf):
            res = f(*[rt.to_tensor(a) for a in args])
            pair.append([(str(r.dtype), r.numpy()) for r in (res if isinstance(res, (tuple, list)) else [res])])
        out.append(pair)
    return out


def _int_powers(x):
    return rt.pow(x, 2.5), x.pow(3.0), x ** 2.5, 2 ** x, (-1) ** x, x ** x


@pytest.mark.filterwarnings("ignore:invalid value encountered in power")
def test_integer_powers_match_paddle():
    x = np.array([[-3, -2, -1], [0, 1, 2]], "int32")
    want = [("int32", [[9, 4, 1], [0, 1, 4]]), ("int32", [[-27, -8, -1], [0, 1, 8]]),
            ("float32", [[np.nan] * 3, [0, 1, 2 ** 2.5]]), ("int32", [[0, 0, 0], [1, 2, 4]]),
            ("int32", [[-1, 1, -1], [1, -1, 1]]), ("int32", [[0, 0, -1], [1, 1, 4]])]
    for eager, static in _both(_int_powers, [dy2st.InputSpec([None, 3], "int32")], (x,), (np.concatenate([x, x]),)):
        for got in (eager, static):
            assert [d for d, _ in got] == [d for d, _ in want]
            for (_, g), (_, w) in zip(got, want):
                np.testing.assert_allclose(g[:2], np.array(w, "float64"), rtol=1e-6)


def _means(x):
    a = x.numpy()
    return x.mean(), rt.mean(x, axis=0), x.mean(axis=1, keepdim=True), (x > 0).mean(), x * a.mean()


def test_mean_of_ints_keeps_the_dtype_and_truncates_toward_zero():
    x = np.array([[-1, -2], [-3, -4], [5, 8]], "int64")
    (eager, static), = _both(_means, [dy2st.InputSpec([None, 2], "int64")], (x,))
    want = [("int64", 0), ("int64", [0, 0]), ("int64", [[-1], [-3], [6]]), ("bool", True),
            ("float32", x * 0.5)]  # numpy's mean (0.5, a float) in converted code too, not the tensor's int 0
    for got in (eager, static):
        assert [d for d, _ in got] == [d for d, _ in want]
        for (_, g), (_, w) in zip(got, want):
            np.testing.assert_allclose(g, w)


def _broadcast_and_roll(x):
    m = rt.to_tensor([True, False, True, True])
    return rt.masked_select(x, m), rt.masked_select(x[:, :1], x[0] > 0), rt.roll(x, 1, 0), rt.roll(x, [-3, 1], [0, 2])


def test_masked_select_and_roll_over_an_unknown_batch_dim():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4) - 5
    for eager, static in _both(_broadcast_and_roll, [dy2st.InputSpec([None, 3, 4])], (x,), (np.concatenate([x, x, x[:1]]),)):
        assert len(eager) == len(static)
        for (de, e), (ds, s) in zip(eager, static):
            assert de == ds and e.shape == s.shape
            np.testing.assert_array_equal(e, s)
    np.testing.assert_array_equal(_broadcast_and_roll(rt.to_tensor(x))[2].numpy(), np.roll(x, 1, 0))


def test_sort_and_argsort_take_paddles_stable_flag():
    x = rt.to_tensor([3.0, 1.0, 3.0, 1.0])
    assert rt.argsort(x, stable=True).numpy().tolist() == [1, 3, 0, 2]
    assert rt.argsort(x, descending=True, stable=True).numpy().tolist() == [0, 2, 1, 3]
    assert rt.sort(x, stable=True).numpy().tolist() == [1.0, 1.0, 3.0, 3.0]


def _clip_by_tensors(x):
    return rt.clip(x, min=rt.to_tensor(-1.0), max=x.mean()), rt.clip(x, min=rt.to_tensor([0.5])), x.clip(max=rt.to_tensor(2.0))


def test_clip_with_tensor_bounds_converts_with_eager_values_and_gradients():
    x = np.array([[-2.0, -1.0, 0.0], [1.0, 2.0, 3.0]], "float32")
    check(_clip_by_tensors, (x,), (x[::-1] * 0.7,), grad=True)
    lo, hi = _clip_by_tensors(rt.to_tensor(x))[0].numpy().min(), _clip_by_tensors(rt.to_tensor(x))[0].numpy().max()
    assert (lo, hi) == (-1.0, 0.5)
