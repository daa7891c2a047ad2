"""rt.save / rt.load: round trips, no pickle ever, clear errors on bad files, atomic writes."""
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime import nn, serialization
from runtime.serialization import SerializationError


def test_nested_round_trip(tmp_path):
    path = str(tmp_path / "obj.pd")
    t = rt.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    obj = {"a": t, "b": [np.array([1, 2], np.int64), (True, None, "text", 3, 2.5)],
           "c": {"inner": {"x": np.zeros((0, 4), np.float16), "flag": np.bool_(True)}},
           "d": float("inf"), 7: np.array(True), "mask": np.array([True, False])}
    rt.save(obj, path)
    back = rt.load(path)
    assert isinstance(back["a"], rt.Tensor) and back["a"].dtype == "float32"
    np.testing.assert_array_equal(back["a"].numpy(), t.numpy())
    assert isinstance(back["b"][0], np.ndarray) and back["b"][0].dtype == np.int64
    assert back["b"][1] == (True, None, "text", 3, 2.5) and isinstance(back["b"][1], tuple)
    assert back["c"]["inner"]["x"].shape == (0, 4) and back["c"]["inner"]["x"].dtype == np.float16
    assert back["c"]["inner"]["flag"] == np.bool_(True)
    assert back["d"] == float("inf") and back[7].dtype == np.bool_
    assert list(back) == ["a", "b", "c", "d", 7, "mask"]
    assert rt.load(path, return_numpy=True)["a"].__class__ is np.ndarray


def test_layer_state_dict_round_trip(tmp_path):
    rt.seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.Linear(4, 2))
    model(rt.randn([5, 3]))  # move the running stats away from their init
    path = str(tmp_path / "model.pdparams")
    rt.save(model.state_dict(), path)
    other = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.Linear(4, 2))
    other.set_state_dict(rt.load(path))
    for (k, a), (k2, b) in zip(model.state_dict().items(), other.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot store object"):
        rt.save({"x": object()}, str(tmp_path / "bad.pd"))
    with pytest.raises(TypeError):
        rt.save({"x": np.array([object()])}, str(tmp_path / "bad.pd"))
    assert not os.path.exists(tmp_path / "bad.pd")


def test_truncated_file(tmp_path):
    path = str(tmp_path / "t.pd")
    rt.save({"w": np.random.rand(100, 100)}, path)
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    with pytest.raises(SerializationError, match="t.pd.*truncated or corrupted"):
        rt.load(path)


def test_corrupted_member(tmp_path):
    path = str(tmp_path / "c.pd")
    rt.save({"w": np.zeros(1000)}, path)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF  # inside the array payload: the CRC no longer matches
    open(path, "wb").write(bytes(data))
    with pytest.raises(ValueError, match="c.pd"):
        rt.load(path)


def test_random_bytes_and_empty_file(tmp_path):
    path = tmp_path / "r.pd"
    path.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(SerializationError, match="r.pd.*not an rt.save archive"):
        rt.load(str(path))
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        rt.load(str(path))
    with pytest.raises(FileNotFoundError):
        rt.load(str(tmp_path / "missing.pd"))


class _Evil:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (open, (self.target, "w"))


def test_pickle_payload_is_never_executed(tmp_path):
    target = tmp_path / "pwned.txt"
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"w": _Evil(str(target))}))
    with pytest.raises(SerializationError, match="evil.pdparams.*pickle"):
        rt.load(str(path))
    assert not target.exists()
    # the same payload hidden inside a zip archive member
    zpath = tmp_path / "evil.npz"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("__header__.npy", pickle.dumps(_Evil(str(target))))
    with pytest.raises(ValueError, match="evil.npz"):
        rt.load(str(zpath))
    assert not target.exists()


def test_foreign_npz_and_bad_header(tmp_path):
    path = str(tmp_path / "plain.npz")
    np.savez(path, x=np.zeros(3))
    with pytest.raises(SerializationError, match="no '__header__'"):
        rt.load(path)
    np.savez(path, __header__=np.frombuffer(b'{"format": "other", "version": 1}', np.uint8))
    with pytest.raises(SerializationError, match="unknown format"):
        rt.load(path)
    np.savez(path, __header__=np.frombuffer(b'{"format": "runtime.save", "version": 99}', np.uint8))
    with pytest.raises(SerializationError, match="version 99"):
        rt.load(path)
    np.savez(path, __header__=np.frombuffer(
        b'{"format": "runtime.save", "version": 1, "root": {"t": "ndarray", "ref": "a7"}}', np.uint8))
    with pytest.raises(SerializationError, match="missing array"):
        rt.load(path)


def test_failed_save_leaves_previous_file_intact(tmp_path, monkeypatch):
    path = str(tmp_path / "ckpt.pdparams")
    rt.save({"v": np.ones(3)}, path)

    def boom(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(serialization.np, "savez", boom)
    with pytest.raises(OSError, match="disk full"):
        rt.save({"v": np.zeros(3)}, path)
    monkeypatch.undo()
    np.testing.assert_array_equal(rt.load(path)["v"], np.ones(3))
    assert os.listdir(tmp_path) == ["ckpt.pdparams"]  # no temp file left behind


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def test_a_version_1_file_still_loads():
    # written by rt.save before the header described its containers as a pytree (version 1)
    back = rt.load(os.path.join(DATA, "rt_save_v1.pdparams"))
    assert list(back) == ["w", "list", "tup", 7]
    w = back["w"]
    assert w.name == "w_0" and not w.stop_gradient
    np.testing.assert_array_equal(w.numpy(), np.arange(6, dtype="float32").reshape(2, 3))
    ints, flt, nan, none, text, flag, scalar = back["list"]
    assert (ints, flt, none, text, flag) == (1, 2.5, None, "s", True) and np.isnan(nan)
    assert isinstance(scalar, np.float32) and scalar == 3.5
    arr, empty_list, empty_dict = back["tup"]
    assert isinstance(back["tup"], tuple) and empty_list == [] and empty_dict == {}
    np.testing.assert_array_equal(arr, np.arange(3, dtype="int64"))
    assert float(back[7]["nested"]) == 1.5


def test_the_header_is_a_tree_description_and_leaf_entries(tmp_path):
    path = str(tmp_path / "s.pdparams")
    rt.save({"b": [rt.ones([2]), 3], "a": (None, {})}, path)
    with np.load(path) as z:
        header = json.loads(z["__header__"].tobytes().decode())
    assert header["version"] == 2
    assert header["tree"] == ["dict", [["b", ["list", [["leaf"], ["leaf"]]]], ["a", ["tuple", [["leaf"], ["dict", [], []]]]]],
                              ["b", "a"]]
    assert [e["t"] for e in header["leaves"]] == ["tensor", "value", "value"]
    back = rt.load(path)
    assert list(back) == ["b", "a"] and back["b"][1] == 3 and back["a"] == (None, {})


def test_a_malformed_tree_description_is_a_serialization_error(tmp_path):
    path = str(tmp_path / "bad.pdparams")
    for tree, leaves in ((["dict", [[{"k": 1}, ["leaf"]]]], [{"t": "value", "v": 1}]),
                         (["list", [["leaf"]]], []), (["set", []], []), (3, [])):
        head = json.dumps({"format": "runtime.save", "version": 2, "tree": tree, "leaves": leaves})
        with open(path, "wb") as f:
            np.savez(f, __header__=np.frombuffer(head.encode(), np.uint8))
        with pytest.raises(SerializationError, match=r"bad\.pdparams"):
            rt.load(path)
