"""Paddle's ``F.ctc_loss`` (over the ``warpctc`` op of nn_ctc.py), ``F.multi_margin_loss``,
``F.multi_label_margin_loss``, ``F.triplet_margin_with_distance_loss``, ``F.npair_loss`` and
``F.hsigmoid_loss`` as composites of registered ops, following Paddle's formulas step by step (their
gradients, static form and ONNX export are those of the ops they are made of)."""
from collections.abc import Callable

import numpy as np

from ..dispatch import apply
from ..hints import TensorLike
from ..registry import composite
from .common import cast, constant, same_shape
from .composites_extra import _dim
from .creation import full_like, ones, zeros_like
from .elementwise import clip, exp, log, minimum
from .elementwise import pow as pow_
from .logic import equal, greater_equal, isinf, logical_not, where
from .math import add, divide, matmul, multiply, relu, scale, subtract
from .nn_loss import _check_reduction
from .nn_loss_extra import pairwise_distance, softmax_with_cross_entropy
from .reduce import cumsum, mean
from .reduce import sum as sum_
from .shape import gather, reshape, squeeze, transpose, unsqueeze
from .sort import take_along_axis


def _reduce(loss, reduction):
    return mean(loss) if reduction == "mean" else sum_(loss) if reduction == "sum" else loss


@composite("ctc_loss", functional=["ctc_loss"])
def ctc_loss(log_probs: TensorLike, labels: TensorLike, input_lengths: TensorLike, label_lengths: TensorLike,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False,
             zero_infinity: bool = False) -> TensorLike:
    """CTC loss of ``log_probs`` [max_T, B, C] (unnormalised: softmax is applied inside, as Paddle's warpctc)
    against int32 ``labels`` [B, max_L]; "mean" divides each loss by its label length, then averages."""
    if reduction not in ("mean", "sum", "none"):
        raise AssertionError(f"ctc_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    loss, _ = apply("warpctc", log_probs, labels, input_lengths, label_lengths, blank=int(blank),
                    norm_by_times=bool(norm_by_times))
    loss = squeeze(loss, -1)
    if zero_infinity:
        loss = where(isinf(loss), zeros_like(loss), loss)
    if reduction == "mean":
        return mean(divide(loss, cast(label_lengths, str(loss.dtype))))
    return sum_(loss) if reduction == "sum" else loss


@composite("multi_margin_loss", functional=["multi_margin_loss"])
def multi_margin_loss(input: TensorLike, label: TensorLike, p: int = 1, margin: float = 1.0,  # noqa: A002
                      weight: TensorLike | None = None, reduction: str = "mean", name: str | None = None) -> TensorLike:
    """Multi-class hinge loss: per row ``mean_i(w[y] * max(0, margin - x[y] + x[i]) ** p) - w[y] * margin ** p / C``
    (the i = y term taken out, as Paddle's)."""
    _check_reduction(reduction, "multi_margin_loss")
    same_shape(input, label, f"multi_margin_loss: the label's shape[0] should be equal to input's shape[0], got "
                             f"{label.shape[0]} and {input.shape[0]}", dims=(0,))
    label = reshape(label, [-1, 1])
    picked = take_along_axis(input, cast(label, "int64"), axis=1)
    c = input.shape[1]
    hinge = pow_(clip(add(scale(picked, -1.0, bias=float(margin)), input), min=0.0), float(p))
    if c >= 0:
        per_class = margin ** p / c
    else:  # a class count known only when the Program runs: margin ** p / C in double, as eager's Python float
        per_class = cast(divide(constant(float(margin ** p), "float64"), cast(_dim(input, 1), "float64")),
                         str(hinge.dtype))
    if weight is None:
        if c >= 0:
            return _reduce(scale(mean(hinge, axis=1), 1.0, bias=-per_class), reduction)
        return _reduce(subtract(mean(hinge, axis=1), per_class), reduction)
    message = (f"multi_margin_loss: the weight's shape[0] should be equal to input's shape[1], got "
               f"{weight.shape[0]} and {c}")
    if c >= 0 and weight.shape[0] != c:
        raise ValueError(message)
    if c < 0:
        apply("assert", equal(_dim(input, 1), constant(weight.shape[0], "int64")), [], error="ValueError",
              message=message)
    w = reshape(gather(weight, reshape(cast(label, "int64"), [-1]), axis=0), [-1, 1])
    scaled = scale(w, per_class) if c >= 0 else multiply(w, per_class)
    loss = subtract(mean(multiply(w, hinge), axis=1), squeeze(scaled, -1))
    return _reduce(loss, reduction)


@composite("multi_label_margin_loss", functional=["multi_label_margin_loss"])
def multi_label_margin_loss(input: TensorLike, label: TensorLike, reduction: str = "mean",  # noqa: A002
                            name: str | None = None) -> TensorLike:
    """Multi-label hinge loss: ``label`` rows list target classes up to the first -1; each row sums
    ``max(0, 1 - x[target] + x[other])`` over its targets and its non-target classes, divided by C."""
    _check_reduction(reduction, "multi_label_margin_loss")
    if input.ndim != 2:
        raise ValueError(f"Expected 2D input tensor, but got {input.ndim}D")
    if label.ndim != 2:
        raise ValueError(f"Expected 2D label tensor, but got {label.ndim}D")
    c = input.shape[1]
    if not isinstance(label, _variable_types()) and label.size:
        values = label.numpy()
        if values.min() < -1:
            raise ValueError("label values should be >= -1")
        if values.max() >= c:
            raise ValueError(f"label values should be < {c}")
    label = cast(label, "int64")
    dt = str(input.dtype)
    # a target counts up to the row's first -1
    valid = equal(cumsum(cast(equal(label, full_like(label, -1)), "int64"), axis=1), zeros_like(label))
    safe = where(valid, label, zeros_like(label))
    hot = multiply(apply("one_hot", safe, num_classes=c), unsqueeze(cast(valid, dt), -1))  # [N, K, C]
    is_target = greater_equal(sum_(hot, axis=1), constant(0.5, dt))  # [N, C]
    target_x = take_along_axis(input, safe, axis=1)  # [N, K]
    margins = relu(add(scale(unsqueeze(target_x, -1), -1.0, bias=1.0), unsqueeze(input, 1)))  # [N, K, C]
    keep = multiply(unsqueeze(cast(valid, dt), -1), unsqueeze(cast(logical_not(is_target), dt), 1))
    loss = scale(sum_(multiply(margins, keep), axis=[1, 2]), 1.0 / c)
    return _reduce(loss, reduction)


def _variable_types():
    import runtime  # noqa: PLC0415  (framework loads after the op modules)
    return (runtime.framework.Variable,)


@composite("triplet_margin_with_distance_loss", functional=["triplet_margin_with_distance_loss"])
def triplet_margin_with_distance_loss(input: TensorLike, positive: TensorLike, negative: TensorLike,  # noqa: A002
                                      distance_function: Callable | None = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean", name: str | None = None) -> TensorLike:
    """``max(0, d(input, positive) - d(input, negative) + margin)`` with ``distance_function`` (default: the
    pairwise 2-norm distance); ``swap`` also compares the positive with the negative."""
    _check_reduction(reduction, "triplet_margin_with_distance_loss")
    if margin < 0:
        raise ValueError("The margin between positive samples and negative samples should be greater than 0.")
    for other in (positive, negative):
        same_shape(input, other, "input's shape must equal to positive's shape and negative's shape")
    dist = distance_function if distance_function is not None else (lambda a, b: pairwise_distance(a, b, 2.0))
    pos, neg = dist(input, positive), dist(input, negative)
    if swap:
        neg = minimum(neg, dist(positive, negative))
    for d in (pos, neg):
        if not isinstance(d, _variable_types()) and bool((d.numpy() < 0).any()):
            raise ValueError("The positive distance or negative distance should be greater than 0, "
                             "The distance functions should be checked.")
    return _reduce(clip(scale(subtract(pos, neg), 1.0, bias=float(margin)), min=0.0), reduction)


@composite("npair_loss", functional=["npair_loss"])
def npair_loss(anchor: TensorLike, positive: TensorLike, labels: TensorLike, l2_reg: float = 0.002) -> TensorLike:
    """N-pair loss: soft-label cross entropy of ``anchor @ positive.T`` against the same-label matrix
    (rows normalised), plus ``l2_reg / 4`` times the mean squared norms of anchor and positive (Paddle's
    formula, step by step)."""
    if 0 in anchor.shape or 0 in positive.shape:  # (a run-time dim's size is a Variable: only known dims decide)
        raise ValueError("The dims of anchor and positive should be greater than 0.")
    b = _dim(labels, 0)
    lab = reshape(labels, [b, 1])
    same = cast(equal(lab, transpose(lab, [1, 0])), "float32")
    same = divide(same, sum_(same, axis=1, keepdim=True))
    l2 = add(mean(sum_(multiply(anchor, anchor), axis=1)), mean(sum_(multiply(positive, positive), axis=1)))
    l2 = scale(l2, 0.25 * float(l2_reg))
    sim = matmul(anchor, positive, transpose_y=True)
    ce = softmax_with_cross_entropy(sim, cast(same, str(sim.dtype)), soft_label=True)  # [B, 1]
    return add(l2, mean(sum_(multiply(cast(same, str(ce.dtype)), ce), axis=0)))


def _default_tree(num_classes):
    """Paddle's default (complete binary) tree: each class's node indices [C, L] (-1 past its path) and bits."""
    length = int(np.floor(np.log2(2 * num_classes - 1)))
    table = np.full((num_classes, length), -1, np.int64)
    code = np.zeros((num_classes, length), np.int64)
    for k in range(num_classes):
        c = k + num_classes
        for j in range(int(np.floor(np.log2(c)))):
            table[k, j] = (c >> (j + 1)) - 1
            code[k, j] = (c >> j) & 1
    return table, code


@composite("hsigmoid_loss", functional=["hsigmoid_loss"])
def hsigmoid_loss(input: TensorLike, label: TensorLike, num_classes: int, weight: TensorLike,  # noqa: A002
                  bias: TensorLike | None = None, path_table: TensorLike | None = None,
                  path_code: TensorLike | None = None, is_sparse: bool = False, name: str | None = None) -> TensorLike:
    """Hierarchical sigmoid loss [N, 1]: along the class's path of binary decisions (Paddle's default complete
    binary tree, or ``path_table``/``path_code``), the sum of ``log(1 + exp(z)) - bit * z`` with
    ``z = clip(x . w[node] + b[node], -40, 40)``; each step past a shorter path adds log 2, as Paddle's kernel."""
    if num_classes < 2:
        raise ValueError(f"hsigmoid_loss: num_classes must be at least 2, got {num_classes}")
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: path_table and path_code must be given together")
    n = _dim(input, 0)
    ids = reshape(cast(label, "int64"), [-1])
    if path_table is None:
        table, code = _default_tree(int(num_classes))
        nodes = gather(constant(table, "int64"), ids, axis=0)  # [N, L]
        bits = gather(constant(code, "int64"), ids, axis=0)
    else:
        nodes, bits = cast(path_table, "int64"), cast(path_code, "int64")
    dt = str(input.dtype)
    valid = cast(greater_equal(nodes, zeros_like(nodes)), dt)
    safe = where(greater_equal(nodes, zeros_like(nodes)), nodes, zeros_like(nodes))
    length = nodes.shape[1]
    rows = reshape(gather(weight, reshape(safe, [-1]), axis=0), [n, length, weight.shape[1]])
    z = sum_(multiply(rows, unsqueeze(input, 1)), axis=-1)  # [N, L]
    if bias is not None:
        z = add(z, reshape(gather(reshape(bias, [-1]), reshape(safe, [-1]), axis=0), [n, length]))
    z = clip(z, -40.0, 40.0)
    terms = subtract(log(add(exp(z), ones([1], dtype=dt))), multiply(cast(bits, dt), z))
    # Paddle's kernel leaves z = 0 past a path's end and still adds log(1 + exp(0)) there: log 2 per step
    pad = scale(subtract(ones([1], dtype=dt), valid), float(np.log(2.0)))
    return sum_(add(multiply(terms, valid), pad), axis=1, keepdim=True)
