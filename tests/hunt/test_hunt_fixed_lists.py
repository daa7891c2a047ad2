"""Containers carried by tensor control flow. A list of tensors of fixed length rebound in a tensor loop (RNN states: `hs = [f(h) for h
in hs]`, Paddle's seq2seq decoders) is carried item by item, like a tuple; a list the loop
grows or shrinks is still carried as one stacked tensor. A namedtuple stays one, a dict rebound there is carried value by value."""
import collections

import numpy as np

import dy2st
import runtime as rt
from tests.compat.helpers import check


def _states(x, n):
    hs = [x, x * 2]
    for _ in range(n):
        hs = [h * 0.5 + 1 for h in hs]
    return hs


def _states_break(x, n):
    hs = [x, rt.concat([x, x])]  # items of different shapes
    out = []
    for _ in range(n):
        if hs[0].sum() > 9:
            break
        hs = [hs[0] + 1, hs[1] * 2]
        out.append(hs[0])
    return rt.stack(out), hs


def _mixed(x):
    st = [x * 0, 0]  # a tensor and a Python int: fine item by item
    while st[0].sum() < 5:
        st[0] = st[0] + x
        st[1] = st[1] + 1
    return st[0], st[1]


def _grows(x, n):
    out = [x]
    for _ in range(n):
        x = x + 1
        out.append(x)
    return rt.stack(out)


def test_fixed_length_list_carried_item_by_item():
    x = np.array([1.0, 2.0], "float32")
    for n in (0, 3):
        check(_states, (x, rt.to_tensor(n)), grad=True)
    check(_states_break, (x, rt.to_tensor(6)), (x * 3, rt.to_tensor(2)), grad=True)
    check(_mixed, (x,))
    check(_grows, (x, rt.to_tensor(3)), (x, rt.to_tensor(0)))


_Pair = collections.namedtuple("_Pair", ["a", "b"])


def _named(x, n):
    p = _Pair(x, x * 2)
    if x.sum() > 0:
        p = _Pair(p.a + 1, p.b)
    for _ in range(n):
        p = _Pair(p.a + 1, p.b * 2)
    return p.a + p.b, p


def test_namedtuple_keeps_its_class_through_tensor_if_and_loop():
    x = np.array([1.0, 2.0], "float32")
    check(_named, (x, rt.to_tensor(2)), (-x, rt.to_tensor(0)))
    _, p = dy2st.to_static(_named)(rt.to_tensor(x), rt.to_tensor(1))
    assert type(p) is _Pair  # it was a plain list/tuple: `p.a` an AttributeError


def _dict_states(x, n):
    st = {"h": x, "c": [x, x * 2]}
    if x.sum() > 0:
        st = {"h": st["h"] + 1, "c": st["c"]}
    for _ in range(n):
        if st["h"].sum() > 20:
            break
        st = {"h": st["h"] * 2, "c": [c + 1 for c in st["c"]]}
    return st


def test_dict_rebound_under_tensor_if_and_loop():
    x = np.array([1.0, 2.0], "float32")
    check(_dict_states, (x, rt.to_tensor(4)), (-x, rt.to_tensor(0)), grad=True)


def _alias_list(x, n):
    st = [x * 0, 0]
    al = st
    for _ in range(n):
        st[0] = st[0] + x
        st[1] = st[1] + 1
    return al[0], al[1]


def _alias_dict(x):
    st = {"s": x * 0}
    al = st
    while st["s"].sum() < 5:
        st["s"] = st["s"] + x
    return al["s"]


def test_item_writes_in_tensor_loop_reach_aliases():
    # the alias kept the value before the loop (silently), or the loop was refused
    x = np.array([1.0, 2.0], "float32")
    check(_alias_list, (x, rt.to_tensor(3)), (x, rt.to_tensor(0)))
    check(_alias_dict, (x,))


def _none_items(x, n):
    hs = [x, None]  # a layer without a cell state
    st = {"h": x, "c": None}
    if x.sum() > 0:
        hs = [hs[0] + 1, None]
    for _ in range(n):
        hs = [hs[0] * 2, hs[1]]
        st = {"h": st["h"] + 1, "c": st["c"]}
    return hs[0], hs[1] is None, st["h"], st["c"] is None


def test_none_items_stay_none_through_a_tensor_loop():
    # the list was a TypeError (no tensor from None), the dict refused, so was the tensor if
    x = np.array([1.0, 2.0], "float32")
    check(_none_items, (x, rt.to_tensor(2)), (-x, rt.to_tensor(0)))
