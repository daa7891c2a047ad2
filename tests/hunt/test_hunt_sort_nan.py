"""sort/argsort/topk treat nan as the largest value, as Paddle does: last ascending, first descending
(descending used to put nan last); ties keep index order."""
import numpy as np

import dy2st
import runtime as rt


def _orders(x):
    return rt.sort(x, descending=True), rt.argsort(x, descending=True), rt.topk(x, 2)[1], \
        rt.topk(x, 2, largest=False)[1], rt.argsort(x)


def test_nan_sorts_as_largest_eager_and_converted():
    x = rt.to_tensor([[np.nan, 1.0, np.nan, 2.0], [1.0, 1.0, 2.0, 2.0]])
    for outs in (_orders(x), dy2st.to_static(_orders)(x)):
        s, a, top, low, asc = (o.numpy() for o in outs)
        np.testing.assert_array_equal(s, [[np.nan, np.nan, 2.0, 1.0], [2.0, 2.0, 1.0, 1.0]])
        assert a.tolist() == [[0, 2, 3, 1], [2, 3, 0, 1]]
        assert top.tolist() == [[0, 2], [2, 3]]
        assert low.tolist() == [[1, 3], [0, 1]]
        assert asc.tolist() == [[1, 3, 0, 2], [0, 1, 2, 3]]
