"""Functions that require equal shapes (eager raises ValueError otherwise) compared the placeholder
shapes of dims unknown while the Program is built ([-1] == [-1]) and went on to broadcast a 1 at run
time: binary_cross_entropy, poisson_nll_loss, multi_label_soft_margin_loss, triplet_margin_loss and
rt.dot gave a value where eager raises, and rt.equal_all said True for [2.] and [2., 2., 2.] (and
False for equal tensors where one dim was known). The shapes are now checked when the Program runs."""
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
