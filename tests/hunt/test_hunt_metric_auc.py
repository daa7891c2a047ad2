"""``rt.metric.Auc`` (the Paddle SimNet-v2 test builds one): Paddle's histogram AUC, batch after batch,
equal to the values Paddle 2.x computes, with ``reset`` and the class-less case."""
import numpy as np
import pytest

import runtime as rt


def test_auc_matches_paddle():
    r = np.random.RandomState(0)
    auc = rt.metric.Auc(num_thresholds=200)
    got = []
    for _ in range(3):
        p1 = r.rand(20).astype("float32")
        preds = np.stack([1 - p1, p1], 1)
        labels = (r.rand(20, 1) < p1[:, None]).astype("int64")
        auc.update(rt.to_tensor(preds), rt.to_tensor(labels))
        got.append(auc.accumulate())
    assert got == [0.6767676767676768, 0.6588541666666666, 0.6780133928571429]  # Paddle's
    assert auc.name() == "auc"
    auc.reset()
    assert auc.accumulate() == 0.0
    auc.update(np.array([[0.2, 0.8]]), np.array([1]))
    assert auc.accumulate() == 0.0  # no negative seen: Paddle gives 0.0
    with pytest.raises(ValueError, match="probabilities"):
        auc.update(np.array([[0.0, 1.5]]), np.array([1]))
