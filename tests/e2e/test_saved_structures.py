"""Saved output structures: one tree description (runtime.pytree) for a model's outputs, and models
saved before it (the older tagged form, ``{"tensor": 0}``...) still load with their structure."""
import collections
import json
import pathlib

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime import nn
from runtime.static.formats.io import ProgramFormatError

DATA = pathlib.Path(__file__).parent / "data"
SPEC = [dy2st.InputSpec([None, 3], "float32", "x")]
Pair = collections.namedtuple("Pair", "a b")
W = np.arange(6, dtype="float32").reshape(3, 2) / 10
B = np.array([0.5, -0.5], "float32")


class Net(nn.Layer):
    """The model the stored files were written from (tests/e2e/data/tagged_structure_model.*)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.fc.weight.set_value(W)
        self.fc.bias.set_value(B)

    def forward(self, x):
        h = self.fc(x)
        return {"out": h, "extra": [h * 2.0, Pair(h + 1.0, 7)], "name": "net"}


def _check(got, x):
    h = x @ W + B
    assert list(got) == ["out", "extra", "name"] and got["name"] == "net"
    np.testing.assert_allclose(got["out"].numpy(), h, rtol=1e-6)
    first, pair = got["extra"]
    np.testing.assert_allclose(first.numpy(), h * 2.0, rtol=1e-6)
    assert type(pair) is tuple and pair[1] == 7  # a loaded model has no user classes: a plain tuple
    np.testing.assert_allclose(pair[0].numpy(), h + 1.0, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 4])
def test_a_model_saved_in_the_tagged_form_still_loads_with_its_structure(n):
    meta = json.loads((DATA / "tagged_structure_model.pdmodel").read_text())["metadata"]
    assert "tensor" in json.dumps(meta["output_structure"])  # the older form, as written then
    x = np.linspace(-1, 1, 3 * n, dtype="float32").reshape(n, 3)
    _check(dy2st.load(str(DATA / "tagged_structure_model"))(rt.to_tensor(x)), x)


def test_a_saved_model_records_its_outputs_as_a_tree(tmp_path):
    class Nested(Net):
        def forward(self, x):
            h = self.fc(x)
            return h, [h * 2.0, Pair(h + 1.0, 7)]
    dy2st.save(Nested(), str(tmp_path / "m"), input_spec=SPEC)
    meta = json.loads((tmp_path / "m.pdmodel").read_text())["metadata"]
    assert meta["output_structure"]["tree"][0] == "tuple" and meta["output_structure"]["outputs"] == [0, 1, 2]
    x = np.ones((2, 3), "float32")
    h, (double, pair) = dy2st.load(str(tmp_path / "m"))(rt.to_tensor(x))
    assert type(pair) is tuple and pair[1] == 7  # a loaded model has no user classes: a plain tuple
    for got, want in ((h, x @ W + B), (double, (x @ W + B) * 2.0), (pair[0], x @ W + B + 1.0)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_dict_outputs_are_saved_as_paddle_does_values_sorted_by_key(tmp_path):
    # Paddle's jit.save warns and its loaded model returns the Tensors flat, dict values in key
    # order, constants left out; models saved before this (the tagged form above) keep their dicts.
    with pytest.warns(UserWarning, match="sorted in lexicographical order by their keys"):
        dy2st.save(Net(), str(tmp_path / "m"), input_spec=SPEC)
    x = np.ones((2, 3), "float32")
    h = x @ W + B
    got = dy2st.load(str(tmp_path / "m"))(rt.to_tensor(x))
    assert isinstance(got, list) and len(got) == 3
    for g, want in zip(got, (h * 2.0, h + 1.0, h)):  # "extra" before "out"
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)


def test_a_tensor_returned_twice_is_one_output_and_one_object(tmp_path):
    @dy2st.to_static(input_spec=SPEC)
    def twice(x):
        y = x * 2.0
        return [y, (y, x)]
    got = twice(rt.ones([2, 3]))
    assert got[0] is got[1][0] and len(twice.concrete_program.outputs) == 2
    dy2st.save(twice, str(tmp_path / "t"))
    loaded = dy2st.load(str(tmp_path / "t"))(rt.ones([2, 3]))
    assert loaded[0] is loaded[1][0]


def test_a_malformed_structure_is_a_format_error(tmp_path):
    with pytest.warns(UserWarning, match="Found 'dict' in given outputs"):
        dy2st.save(Net(), str(tmp_path / "m"), input_spec=SPEC)
    path = tmp_path / "m.pdmodel"
    data = json.loads(path.read_text())
    data["metadata"]["output_structure"]["outputs"] = [0, 1, 9]
    path.write_text(json.dumps(data))
    with pytest.raises(ProgramFormatError, match="output_structure.*refers to outputs"):
        dy2st.TranslatedLayer.load(str(tmp_path / "m"))


def test_dict_arguments_keep_their_order_inside_the_function():
    # The rebuilt dict iterates like the caller's, so the Program computes what eager does.
    def ordered(d):
        return rt.concat([v for v in d.values()])
    sf = dy2st.to_static(ordered)
    for d in ({"b": rt.ones([1]), "a": rt.zeros([1])}, {"a": rt.zeros([1]), "b": rt.ones([1])}):
        np.testing.assert_array_equal(sf(d).numpy(), ordered(d).numpy())
