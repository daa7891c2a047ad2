"""Lists held in a local dict or list and grown in a tensor loop (the ``slot_lists`` pass): the item
is carried as a local around the loop, so it grows as eagerly; what the pass leaves alone is still
refused at the user's line."""
import numpy as np
import pytest

import dy2st
import runtime as rt
from tests.compat.helpers import check

X = np.arange(6, dtype="float32").reshape(3, 2) / 4 - 0.5


def dict_and_nested_items(x, n):
    feats = {"key": [], "scale": 2.0}
    st = [[x], []]
    i = 0
    while i < n:
        feats["key"].append(x[0] * i * feats["scale"])  # another key of the dict is read: fine
        st[1].append(x[1] + i)
        i += 1
    return rt.concat(feats["key"]), len(feats["key"]), rt.stack(st[1]).sum(0), st[0][0]


def test_items_of_a_dict_and_a_list_grow_in_a_tensor_while():
    sf = check(dict_and_nested_items, (X, rt.to_tensor(1)), (X, rt.to_tensor(3)), (X, rt.to_tensor(4)),
               grad=True, programs=1, ops=["while"])
    code = sf.code
    assert "feats_key_0 = feats['key']" in code and "feats = _jst.SetItem(feats, 'key', feats_key_0)" in code
    assert "st_1_0 = _jst.Append(st_1_0, x[1] + i)" in code


def grown_in_a_for_over_a_tensor(x):
    out = {"rows": [], "total": []}
    for row in x:
        out["rows"].append(row * 2)
        out["total"].append(row.sum())
    return rt.stack(out["rows"]), rt.stack(out["total"]), len(out["rows"])


def test_items_grow_in_a_for_over_a_tensor_with_a_run_time_length():
    sf = dy2st.to_static(grown_in_a_for_over_a_tensor, input_spec=[dy2st.InputSpec([None, 2], "float32")])
    for rows in (1, 3, 5):
        x = np.linspace(-1, 1, rows * 2, dtype="float32").reshape(rows, 2)
        eager, static = grown_in_a_for_over_a_tensor(rt.to_tensor(x)), sf(rt.to_tensor(x))
        for e, s in zip(eager, static):
            np.testing.assert_allclose(np.asarray(s), np.asarray(e), rtol=1e-6)
    assert len(sf.program_cache) == 1


def python_loop_keeps_the_list(x, store):
    box = {"items": store}
    for k in range(3):  # a Python loop: the rewrite changes nothing Python can see
        box["items"].append(x * k)
    return box["items"] is store, len(store)


def test_a_python_loop_grows_the_same_list_object():
    store_e, store_s = [], []
    eager = python_loop_keeps_the_list(rt.to_tensor(X), store_e)
    static = dy2st.to_static(python_loop_keeps_the_list)(rt.to_tensor(X), store_s)
    assert eager == (True, 3) and static[0] is True and len(store_s) == 3


def parameter_container(x, n, feats):
    for _ in range(n):
        feats["key"].append(x)
    return rt.stack(feats["key"])


def bare_use_in_the_loop(x, n):
    feats = {"key": []}
    for _ in range(n):
        feats["key"].append(x)
        if len(feats) > 3:  # the dict itself is read: the list could be reached through it
            break
    return rt.stack(feats["key"])


def computed_key(x, n):
    feats = {"key": []}
    name = "key"
    for _ in range(n):
        feats[name].append(x)
    return rt.stack(feats["key"])


@pytest.mark.parametrize("fn,extra", [(parameter_container, ({"key": []},)), (bare_use_in_the_loop, ()),
                                      (computed_key, ())])
def test_what_the_pass_leaves_alone_is_refused_at_the_users_line(fn, extra):
    with pytest.raises(ValueError, match="is added inside a tensor-dependent loop") as info:
        dy2st.to_static(fn)(rt.to_tensor(X), rt.to_tensor(2), *extra)
    assert "test_slot_lists.py" in str(info.value)


def extended(x, n):
    a = []
    feats = {"k": []}
    for i in range(n):
        a.extend([x * i, x + i])
        feats["k"].extend((x * 2,))
    return rt.stack(a).sum(0), len(a), rt.stack(feats["k"]).sum(0)


def test_extend_grows_a_local_list_and_a_container_item_in_a_tensor_loop():
    sf = check(extended, (X[0], rt.to_tensor(1)), (X[0], rt.to_tensor(4)), grad=True, programs=1, ops=["while"])
    assert "a = _jst.Extend(a, [x * i, x + i])" in sf.code


def extended_by_a_tensor(x, n):
    a = []
    for _ in range(n):
        a.extend(x)
    return len(a)


def test_extend_by_a_tensor_in_a_tensor_loop_is_refused_at_the_users_line():
    with pytest.raises(TypeError, match="takes a list or tuple of tensors") as info:
        dy2st.to_static(extended_by_a_tensor)(rt.to_tensor(X), rt.to_tensor(2))
    assert "a.extend(x)" in str(info.value)
