"""`obj[key] op= value` evaluates `key` once and applies the item's own in-place operator, as Python
does: a key with side effects (`idx.pop()`, `next(...)`, a walrus) is not run twice, and a list
item's `+=` extends that very list (seen through its other names)."""
import numpy as np

import dy2st
import runtime as rt
from tests.hunt.eager_checks import check, t


def _pop_key(x):
    idx = [0, 2, 1]
    y = x * 1
    y[idx.pop()] += 1.0
    y[idx.pop(0), 1:] *= 3.0
    return y, rt.to_tensor(len(idx))


def _walrus_key(x):
    y = x * 1
    j = 0
    y[(j := j + 1)] -= 5.0
    return y, rt.to_tensor(j)


def _list_item_extends(x):
    inner = [x]
    rows = [inner, [x * 2]]
    rows[0] += [x * 3]
    return rt.to_tensor(len(inner)), inner[-1]


def _dict_item_after_branch(x):
    d = {"a": [x]}
    keep = d["a"]
    if x.sum() > 0:
        y = x + 1
    else:
        y = x - 1
    d["a"] += [y]
    return rt.to_tensor(len(keep)), keep[-1]


def _pop_key_in_tensor_loop(x, n):
    y = x * 1
    ks = [2, 1, 0]
    i = 0
    while i < n:
        y[ks.pop()] += x[i] * 2
        i += 1
    return y


def _pop_key_assign_in_tensor_loop(x, n):
    y = x * 1
    ks = [2, 1, 0]
    i = 0
    while i < n:
        y[ks.pop()] = x[i] * 2
        i += 1
    return y


def _first_output_grads_match(fn, v):
    grads = []
    for f in (fn, dy2st.to_static(fn)):
        x = rt.to_tensor(v, stop_gradient=False)
        (f(x)[0] * rt.to_tensor(np.arange(v.size, dtype="float32").reshape(v.shape))).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0], [0.5, -0.5, 2.0]], "float32")


def test_key_with_side_effects_runs_once():
    check(_pop_key, [(t(X),), (t(-X),)])
    _first_output_grads_match(_pop_key, X)
    y, left = dy2st.to_static(_pop_key)(t(X))
    assert int(left) == 1  # two pops, not four
    np.testing.assert_array_equal(y.numpy()[1], X[1] + 1.0)


def test_walrus_key_binds_once():
    check(_walrus_key, [(t(X),), (t(X * 2),)])
    _first_output_grads_match(_walrus_key, X)
    assert int(dy2st.to_static(_walrus_key)(t(X))[1]) == 1


def test_list_item_plus_equals_extends_the_list_itself():
    check(_list_item_extends, [(t(X),), (t(-X),)])
    check(_dict_item_after_branch, [(t(X),), (t(-X),)])
    assert int(dy2st.to_static(_dict_item_after_branch)(t(X))[0]) == 2


def test_popped_key_in_tensor_loop():
    n1, n3 = t(1, "int64"), t(3, "int64")
    check(_pop_key_in_tensor_loop, [(t(X[0]), n1), (t(X[1]), n3)], grad=True)
    check(_pop_key_assign_in_tensor_loop, [(t(X[0]), n1), (t(X[1]), n3)])
