"""``rt.static.nn.case`` and ``switch_case``: Paddle 2.x's many-way branches, built as Paddle builds
them, one ``cond`` nested in the false branch of the next (eagerly, the chosen function is called)."""
import functools

from ..tensor import Tensor
from .control_flow import cond


def _chain(pairs, default):
    """``cond(p0, f0, lambda: cond(p1, f1, ... default))``: the first true predicate's function runs."""
    false_fn = default
    for pred, true_fn in reversed(pairs):
        false_fn = functools.partial(cond, pred, true_fn, false_fn)
    return false_fn()


def _check_fn(fn, what):
    if not callable(fn):
        raise TypeError(f"{what} must be callable, got {type(fn).__name__}")
    return fn


def case(pred_fn_pairs, default=None, name=None):
    """The function of the first ``(pred, fn)`` pair whose ``pred`` is true, called; ``default()`` when
    none is; without ``default`` the last pair's function is the default (its ``pred`` is not read), as
    Paddle's."""
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError("case: pred_fn_pairs must be a non-empty list or tuple of (pred, fn) pairs")
    pairs = []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"case: each item of pred_fn_pairs must be a (pred, fn) tuple, got {pair!r}")
        pairs.append((pair[0], _check_fn(pair[1], "case: the fn of a (pred, fn) pair")))
    if default is None:
        default = pairs.pop()[1]
    return _chain(pairs, _check_fn(default, "case: default"))


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The function ``branch_fns`` gives for ``branch_index`` (an int tensor of one element), called;
    ``branch_fns`` is a dict {index: fn}, a list of (index, fn) pairs or a list of functions (indexed
    0, 1, ...). ``default()`` runs for any other index; without ``default``, the function of the
    largest index, as Paddle's."""
    if isinstance(branch_index, Tensor) and branch_index.dtype not in ("int32", "int64", "uint8"):
        raise TypeError(f"switch_case: branch_index must be an int32 or int64 tensor, got {branch_index.dtype}")
    items = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if not items:
        raise TypeError("switch_case: branch_fns must not be empty")
    if all(callable(fn) for fn in items):
        items = list(enumerate(items))
    pairs = {}
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], int):
            raise TypeError(f"switch_case: branch_fns items must be (int index, fn) pairs, got {item!r}")
        if item[0] in pairs:
            raise ValueError(f"switch_case: the index {item[0]} appears more than once in branch_fns")
        pairs[item[0]] = _check_fn(item[1], f"switch_case: the fn of index {item[0]}")
    keys = sorted(pairs)
    if default is None:
        default = pairs.pop(keys.pop())
    chain = [(branch_index == key, pairs[key]) for key in keys]
    return _chain(chain, _check_fn(default, "switch_case: default"))
