"""Functions that require equal shapes (eager raises ValueError otherwise) compared the placeholder
shapes of dims unknown while the Program is built ([-1] == [-1]) and went on to broadcast a 1 at run
time: binary_cross_entropy, poisson_nll_loss, multi_label_soft_margin_loss, triplet_margin_loss and
rt.dot (and gaussian_nll_loss, cosine_embedding_loss, multi_margin_loss and bilinear, on the
batch dim) gave a value where eager raises, and rt.equal_all said True for [2.] and [2., 2., 2.] (and
False for equal tensors where one dim was known). The shapes are now checked when the Program runs;
x.is_same_shape(y), a Python bool, is refused when the -1 dims would decide it."""
import numpy as np
import pytest

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime.static import InputSpec

CASES = {
    "bce": lambda a, b: F.binary_cross_entropy(F.sigmoid(a), F.sigmoid(b)),
    "poisson": lambda a, b: F.poisson_nll_loss(a, b),
    "multi_label": lambda a, b: F.multi_label_soft_margin_loss(a, b),
    "triplet": lambda a, b: F.triplet_margin_loss(a, b, b * 0.5),
    "dot": lambda a, b: rt.dot(a, b),
    "gaussian_nll": lambda a, b: F.gaussian_nll_loss(a, a, b),
    "cosine_embedding": lambda a, b: F.cosine_embedding_loss(a, b, rt.ones([a.shape[0]])),
    "multi_margin": lambda a, b: F.multi_margin_loss(a, (b[:, 0] * 2).astype("int64")),
    "bilinear": lambda a, b: F.bilinear(a, b, rt.ones([2, 3, 3])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unequal_run_time_shapes_raise_as_eagerly(name):
    fn = CASES[name]
    sf = dy2st.to_static(lambda a, b: fn(a, b), input_spec=[InputSpec([None, 3], "float32")] * 2)
    b = rt.to_tensor(np.random.RandomState(0).rand(4, 3).astype("float32"))
    for a in (rt.to_tensor(np.random.RandomState(1).rand(4, 3).astype("float32")),):
        np.testing.assert_allclose(sf(a, b).numpy(), fn(a, b).numpy(), rtol=1e-6)
    a = rt.to_tensor(np.ones((1, 3), "float32"))
    with pytest.raises(ValueError):
        fn(a, b)
    with pytest.raises(ValueError):
        sf(a, b)


def _equal_all(x, y):
    return rt.equal_all(x, y)


@pytest.mark.parametrize("second", [None, 3])
def test_equal_all_over_run_time_dims(second):
    sf = dy2st.to_static(_equal_all, input_spec=[InputSpec([None], "float32"), InputSpec([second], "float32")])
    for a, b in [([2.0], [2.0, 2.0, 2.0]), ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]), ([1.0, 2.0], [1.0, 2.0, 5.0]),
                 ([1.0, 2.0, 3.0], [1.0, 2.0, 4.0])]:
        x, y = rt.to_tensor(np.array(a, "float32")), rt.to_tensor(np.array(b, "float32"))
        assert sf(x, y).item() == _equal_all(x, y).item()


def test_is_same_shape_is_refused_where_run_time_dims_decide_it():
    def fn(a, b):
        return a * 2 if a.is_same_shape(b) else a
    sf = dy2st.to_static(fn, input_spec=[InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")])
    with pytest.raises(TypeError, match="is_same_shape"):
        sf(rt.ones([1, 3]), rt.ones([4, 3]))
    sf = dy2st.to_static(fn, input_spec=[InputSpec([None, 3], "float32"), InputSpec([None, 2], "float32")])
    assert sf(rt.ones([1, 3]), rt.ones([4, 2])).numpy().tolist() == [[1.0, 1.0, 1.0]]  # decided: never equal


def test_npair_loss_over_run_time_dims():  # its empty-input check read a run-time size as a Python bool
    def fn(a, y):
        return F.npair_loss(a, a * 0.5, y.astype("float32"))
    sf = dy2st.to_static(fn, input_spec=[InputSpec([None, 3], "float32"), InputSpec([None], "int64")])
    a = rt.to_tensor(np.random.RandomState(0).rand(3, 3).astype("float32"))
    y = rt.to_tensor(np.array([0, 1, 0], "int64"))
    np.testing.assert_allclose(sf(a, y).numpy(), fn(a, y).numpy(), rtol=1e-6)
