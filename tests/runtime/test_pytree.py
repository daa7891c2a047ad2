"""runtime.pytree and rt.utils: flatten / unflatten / map, JSON tree descriptions, Paddle's nest semantics."""
import collections
import json

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import pytree


def test_flatten_visits_sorted_dict_keys_and_rebuilds_insertion_order():
    tree = {"b": [1, (2, None)], "a": {"y": 3, "x": 4}}
    leaves, spec = pytree.flatten(tree)
    assert leaves == [4, 3, 1, 2, None]
    back = pytree.unflatten(spec, leaves)
    assert back == tree and list(back) == ["b", "a"] and list(back["a"]) == ["y", "x"]
    assert isinstance(back["b"][1], tuple)


def test_leaf_types_keep_other_values_as_constants():
    x = rt.to_tensor([1.0])
    leaves, spec = pytree.flatten([x, 3, "s", None, {"k": x}], leaf_types=rt.Tensor)
    assert leaves == [x, x] and spec.num_leaves == 2
    y = rt.to_tensor([2.0])
    assert pytree.unflatten(spec, [y, y]) == [y, 3, "s", None, {"k": y}]


def test_spec_json_round_trip_and_hash():
    tree = {"out": [1, 2], 3: (4, None), "c": "const"}
    leaves, spec = pytree.flatten(tree, leaf_types=int)
    data = json.loads(json.dumps(spec.to_json()))
    again = pytree.TreeSpec.from_json(data)
    assert again == spec and hash(again) == hash(spec)
    assert pytree.unflatten(again, leaves) == tree
    assert list(pytree.unflatten(again, leaves)) == list(tree)


def test_spec_equality_distinguishes_structure_and_constants():
    a = pytree.flatten([1, 2], leaf_types=rt.Tensor)[1]
    b = pytree.flatten([1, 3], leaf_types=rt.Tensor)[1]
    c = pytree.flatten((1, 2), leaf_types=rt.Tensor)[1]
    assert a != b and a != c and a == pytree.flatten([1, 2], leaf_types=rt.Tensor)[1]
    assert pytree.flatten([1], leaf_types=rt.Tensor)[1] != pytree.flatten([True], leaf_types=rt.Tensor)[1]


def test_json_errors_name_the_part():
    with pytest.raises(ValueError, match="ndarray"):
        pytree.flatten([np.ones(2)], leaf_types=rt.Tensor)[1].to_json()
    with pytest.raises(ValueError, match="not a tree description"):
        pytree.TreeSpec.from_json(["bogus"])


def test_namedtuple_and_unflatten_count_error():
    P = collections.namedtuple("P", "a b")
    leaves, spec = pytree.flatten(P(1, [2, 3]))
    assert leaves == [1, 2, 3] and pytree.unflatten(spec, [4, 5, 6]) == P(4, [5, 6])
    with pytest.raises(ValueError, match="3 leaves, got 2"):
        pytree.unflatten(spec, [1, 2])


def test_utils_match_paddle_nest():
    assert rt.utils.flatten(None) == [None]
    assert rt.utils.flatten(5) == [5]
    assert rt.utils.flatten([1, {"b": 2, "a": [3]}]) == [1, 3, 2]
    assert rt.utils.pack_sequence_as(7, [8]) == 8
    assert rt.utils.pack_sequence_as([1, {"b": 2, "a": [3]}], ["x", "y", "z"]) == ["x", {"b": "z", "a": ["y"]}]
    with pytest.raises(ValueError, match="3 leaves"):
        rt.utils.pack_sequence_as([1, [2, 3]], [1])
    with pytest.raises(TypeError, match="list or tuple"):
        rt.utils.pack_sequence_as([1], 1)


def test_map_structure_on_tensors_and_mismatch():
    a = {"x": rt.to_tensor([1.0, 2.0]), "y": [rt.to_tensor([3.0])]}
    b = {"x": rt.to_tensor([10.0, 20.0]), "y": [rt.to_tensor([30.0])]}
    out = rt.utils.map_structure(lambda p, q: p + q, a, b)
    np.testing.assert_allclose(out["x"].numpy(), [11, 22])
    np.testing.assert_allclose(out["y"][0].numpy(), [33])
    with pytest.raises(ValueError, match="structures differ"):
        rt.utils.map_structure(lambda p, q: p, [1, 2], [1, (2,)])


def test_utils_under_to_static_match_eager():
    def f(x, y):
        tree = {"b": [x, y * 2], "a": x - y}
        flat = rt.utils.flatten(tree)
        doubled = rt.utils.map_structure(lambda t: t * 2, tree)
        packed = rt.utils.pack_sequence_as(tree, [t + 1 for t in flat])
        return flat[0] + doubled["b"][1] + packed["b"][0]

    sf = dy2st.to_static(f)
    for s in (1.0, -2.5):
        x = rt.to_tensor([s, 2.0])
        y = rt.to_tensor([3.0, s])
        np.testing.assert_allclose(sf(x, y).numpy(), f(x, y).numpy())
    assert len(sf.program_cache) == 1


def test_const_key_insertion_order_walk_and_constants():
    # const_key adds what == misses (0.0 == -0.0): the specs differ, and hash accordingly
    a = pytree.flatten([0.0, rt.ones([1])], rt.Tensor, const_key=repr)[1]
    b = pytree.flatten([-0.0, rt.ones([1])], rt.Tensor, const_key=repr)[1]
    assert a != b and pytree.flatten([0.0], rt.Tensor)[1] == pytree.flatten([-0.0], rt.Tensor)[1]
    again = pytree.flatten([0.0, rt.zeros([1])], rt.Tensor, const_key=repr)[1]
    assert again == a and hash(again) == hash(a)
    leaves, spec = pytree.flatten({"b": 1, "a": 2}, sort_keys=False)
    assert leaves == [1, 2] and list(pytree.unflatten(spec, [3, 4]).items()) == [("b", 3), ("a", 4)]
    tree = {"w": [rt.ones([1]), "s"], "k": (None, 3)}
    _, spec = pytree.flatten(tree, rt.Tensor)
    assert spec.constants() == [None, 3, "s"]
    assert [p for p, node in spec.walk() if node.kind != "const"] == [(), ("k",), ("w",), ("w", 0)]


def test_named_tuples_as_plain_tuples_in_json():
    Pair = collections.namedtuple("Pair", "a b")
    leaves, spec = pytree.flatten({"p": Pair(1, 2)})
    with pytest.raises(ValueError, match="named tuple Pair"):
        spec.to_json()
    back = pytree.TreeSpec.from_json(json.loads(json.dumps(spec.to_json(plain_tuples=True))))
    assert pytree.unflatten(back, leaves) == {"p": (1, 2)} and type(pytree.unflatten(back, leaves)["p"]) is tuple


def test_dict_subclasses_come_back_as_their_class_or_a_dict():
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    back = pytree.unflatten(pytree.flatten(ordered)[1], [1, 2])
    assert type(back) is collections.OrderedDict and list(back.items()) == [("b", 2), ("a", 1)]
    counts = collections.defaultdict(int, {"x": 3})
    assert pytree.unflatten(pytree.flatten(counts)[1], [4]) == {"x": 4}
