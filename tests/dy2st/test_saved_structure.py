"""A saved model's output structure is a pytree description; models saved with the older tagged
form still load with their structure."""
import json
import pathlib

import numpy as np

import dy2st
import runtime as rt
from runtime.pytree import TreeSpec


class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 2)

    def forward(self, x):
        y = self.fc(x)
        return {"b": y, "a": (y * 2.0, "tag", 3), "c": [y + 1.0]}


def _model_json(prefix):
    hits = [p for p in pathlib.Path(prefix).parent.iterdir()
            if p.suffix == ".pdmodel" and "output_structure" in p.read_text()]
    assert len(hits) == 1, hits
    return hits[0]


def _check(loaded, net, x):
    got, want = loaded(rt.to_tensor(x)), net(rt.to_tensor(x))
    assert list(got) == list(want)  # the user's key order
    assert got["a"][1:] == ("tag", 3)
    for g, w in ((got["b"], want["b"]), (got["a"][0], want["a"][0]), (got["c"][0], want["c"][0])):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_structure_is_a_pytree_description_and_legacy_files_load(tmp_path):
    net = Net()
    prefix = str(tmp_path / "model")
    dy2st.save(net, prefix, input_spec=[dy2st.InputSpec([None, 3], "float32")])
    path = _model_json(prefix)
    data = json.loads(path.read_text())
    spec = TreeSpec.from_json(data["metadata"]["output_structure"])
    assert spec.num_leaves == 3
    x = np.arange(6, dtype="float32").reshape(2, 3)
    _check(dy2st.load(prefix), net, x)

    # The tagged form written before: leaves numbered in the order the function returned them.
    data["metadata"]["output_structure"] = {"dict": [
        ["b", {"tensor": 0}],
        ["a", {"tuple": [{"tensor": 1}, {"value": "tag"}, {"value": 3}]}],
        ["c", {"list": [{"tensor": 2}]}]]}
    path.write_text(json.dumps(data))
    _check(dy2st.load(prefix), net, x)

    # Anything unreadable: the outputs come back as a list, as for a structure JSON cannot hold.
    data["metadata"]["output_structure"] = ["tuple", [["leaf"]]]
    path.write_text(json.dumps(data))
    assert isinstance(dy2st.load(prefix)(rt.to_tensor(x)), list)
