"""``rt.metric``: classification accuracy (Paddle's ``paddle.metric.accuracy`` and ``Accuracy``).

``accuracy`` is built from ops, so it works eagerly, in a static Program and
inside a converted function.  ``Accuracy`` is a stateful metric: ``compute``
turns predictions into a 0/1 "correct" matrix (ops), ``update`` adds it to the
running totals (numpy), ``accumulate`` reads them.
"""
import numpy as np

from .framework import Variable
from .ops.common import cast
from .ops.logic import equal
from .ops.reduce import any as any_, argmax, mean
from .ops.shape import reshape
from .ops.sort import argsort, topk
from .tensor import Tensor, TensorLike

__all__ = ["Accuracy", "Auc", "Metric", "accuracy"]


def _label_column(label):
    """Labels as an int column [N, 1]: from [N], [N, 1] or one-hot/soft [N, C]."""
    if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
        return reshape(label, [-1, 1])
    return argmax(label, axis=-1, keepdim=True)


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Fraction of rows whose label is among the ``k`` largest scores of ``input``: a float32 Tensor of
    shape [] (0-D, as Paddle 3 returns it; Python's ``%f`` formatting and ``float()`` take it)."""
    if not isinstance(input, TensorLike) or not isinstance(label, TensorLike):
        raise TypeError(f"accuracy expects Tensors, got {type(input).__name__} and {type(label).__name__}")
    if input.ndim != 2:
        raise ValueError(f"accuracy: input must be [batch, classes], got shape {input.shape}")
    if label.ndim not in (1, 2) or (label.ndim == 2 and label.shape[-1] != 1):
        raise ValueError(f"accuracy: label must be [batch] or [batch, 1] class indices, got shape {label.shape}")
    if label.dtype not in ("int32", "int64"):
        raise TypeError(f"accuracy: label must be int32 or int64 class indices, got {label.dtype}")
    if correct is not None or total is not None:
        raise NotImplementedError("accuracy(correct=..., total=...) is not supported; use rt.metric.Accuracy")
    _, idx = topk(input, k=int(k), axis=-1)
    hit = equal(idx, cast(reshape(label, [-1, 1]), "int64"))
    return mean(cast(any_(hit, axis=-1), "float32"))


class Metric:
    """Base of stateful metrics: ``reset``, ``update``, ``accumulate``, ``name``, optional ``compute``."""

    def reset(self):
        """Clear the accumulated state."""
        raise NotImplementedError

    def update(self, *args):
        """Add one batch's result (what ``compute`` returned) to the state."""
        raise NotImplementedError

    def accumulate(self):
        """The metric over everything seen since the last ``reset``."""
        raise NotImplementedError

    def name(self):
        """The metric's name(s), used as log keys."""
        raise NotImplementedError

    def compute(self, *args):
        """Per-batch preprocessing of the model output and label; returns ``update``'s arguments (identity here)."""
        return args


class Accuracy(Metric):
    """Top-k accuracy over many batches: ``update(compute(pred, label))`` per batch, then ``accumulate()``."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        self.topk = tuple(int(k) for k in (topk if isinstance(topk, (list, tuple)) else (topk,)))
        self.maxk = max(self.topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in self.topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args):
        """A float32 [N, maxk] Tensor: 1 where the j-th best class of row i is its label."""
        order = argsort(pred, axis=-1, descending=True)
        best = order[:, :self.maxk] if order.ndim == 2 else order[..., :self.maxk]
        return cast(equal(best, cast(_label_column(label), "int64")), "float32")

    def update(self, correct, *args):
        """Add one batch's ``compute`` result; returns this batch's accuracy (a list for several k)."""
        if isinstance(correct, Variable):
            raise TypeError("Accuracy.update needs values: call it on eager Tensors or fetched arrays")
        correct = correct.numpy() if isinstance(correct, Tensor) else np.asarray(correct)
        n = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            accs.append(hits / n if n else 0.0)
            self.total[i] += hits
            self.count[i] += n
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        """Forget every batch seen so far."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """Accuracy over every batch since the last reset (a list for several k)."""
        res = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        """Names of the values ``accumulate`` returns."""
        return self._name


class Auc(Metric):
    """Area under the ROC curve over many batches, from a histogram of the positive-class scores in
    ``num_thresholds + 1`` bins (Paddle's ``paddle.metric.Auc``): ``update(preds, labels)`` with
    ``preds`` [N, 2] class probabilities (column 1 is the positive class) and ``labels`` [N] or [N, 1]."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        if curve != "ROC":
            raise NotImplementedError(f"Auc: only curve='ROC' is supported, got {curve!r}")
        self._curve, self._num_thresholds, self._name = curve, int(num_thresholds), name
        self.reset()

    def update(self, preds, labels):
        """Count this batch's positive-class scores, each in the bin ``int(score * num_thresholds)``."""
        if isinstance(preds, Variable) or isinstance(labels, Variable):
            raise TypeError("Auc.update needs values: call it on eager Tensors or fetched arrays")
        preds, labels = (np.asarray(v.numpy() if isinstance(v, Tensor) else v) for v in (preds, labels))
        scores = preds.reshape(preds.shape[0], -1)[:, 1]
        bins = (scores * self._num_thresholds).astype(np.int64)
        if bins.size and (bins.min() < 0 or bins.max() > self._num_thresholds):
            raise ValueError("Auc.update: preds must be probabilities in [0, 1]")
        positive = labels.reshape(-1).astype(bool)
        np.add.at(self._stat_pos, bins[positive], 1.0)
        np.add.at(self._stat_neg, bins[~positive], 1.0)

    def accumulate(self):
        """The AUC of everything seen since the last reset (0.0 without both classes)."""
        # from the highest threshold down: cumulative true/false positives and the trapezoids between them
        pos, neg = np.cumsum(self._stat_pos[::-1]), np.cumsum(self._stat_neg[::-1])
        pos_prev, neg_prev = np.concatenate([[0.0], pos[:-1]]), np.concatenate([[0.0], neg[:-1]])
        area = np.cumsum(np.abs(neg - neg_prev) * (pos + pos_prev) / 2.0)[-1]
        tot_pos, tot_neg = pos[-1], neg[-1]
        return area / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0  # np.float64, as Paddle

    def reset(self):
        """Forget every batch seen so far."""
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        """The metric's name."""
        return self._name


from .metric_extra import Precision, Recall  # noqa: E402  (binary precision and recall)
__all__ += ["Precision", "Recall"]
