"""gather/index_select read a [N, 1] index as [N], as Paddle does (the result had an extra dim);
other 2-D and higher-rank indices raise, as in Paddle."""
import numpy as np
import pytest

import dy2st
import runtime as rt

from tests.hunt.eager_checks import t

X = np.arange(12, dtype="float32").reshape(3, 4)


def _pick(x, i):
    return rt.gather(x, i), rt.gather(x, i, axis=1), rt.index_select(x, i), x.gather(i)


def test_column_index_is_flat_eager_and_converted():
    sf = dy2st.to_static(_pick)
    for idx in ([[2], [0]], [[1], [1], [0]]):
        flat = [r[0] for r in idx]
        want = (X[flat], X[:, flat], X[flat], X[flat])
        for got in (_pick(t(X), t(idx, "int64")), sf(t(X), t(idx, "int64"))):
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.numpy(), w)


def test_other_ranks_raise():
    for idx in ([[1, 0]], [[[1]], [[0]]]):
        with pytest.raises(ValueError, match="gather: index must be"):
            rt.gather(t(X), t(idx, "int64"))
