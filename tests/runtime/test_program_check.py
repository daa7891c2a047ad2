"""A corrupted .pdmodel is refused on load with ProgramFormatError naming the file, never run."""
import json
import os
import random

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static import InputSpec
from runtime.static.formats.io import ProgramFormatError


class Net(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(4, 4)
        self.bn = rt.nn.BatchNorm1D(4)

    def forward(self, x, n):
        y = self.bn(self.fc(x))
        i = 0
        while i < n:
            if y.sum() > 0:
                y = y * 0.5 + rt.tanh(y)
            else:
                y = y - 1.0
            i += 1
        return rt.nn.functional.relu(y).mean(axis=1), y[:, 1:3]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    rt.seed(1)
    folder = tmp_path_factory.mktemp("model")
    prefix = str(folder / "net")
    dy2st.save(Net(), prefix, input_spec=[InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")])
    files = {s: open(prefix + s, "rb").read() for s in (".pdmodel", ".pdiparams", ".pdiparams.info")}
    feeds = (rt.to_tensor(np.random.default_rng(0).standard_normal((3, 4)).astype("float32")),
             rt.to_tensor(np.array([3])))
    return files, feeds


def _load_and_run(files, model_bytes, folder, feeds):
    prefix = os.path.join(folder, "bad")
    for suffix, payload in files.items():
        open(prefix + suffix, "wb").write(model_bytes if suffix == ".pdmodel" else payload)
    layer = dy2st.load(prefix)
    return [o.numpy() for o in layer(*feeds)]


def _edit(files, fn):
    model = json.loads(files[".pdmodel"])
    fn(model["program"]["blocks"])
    return json.dumps(model).encode()


def _ops(blocks, typ):
    return [op for b in blocks for op in b["ops"] if op["type"] == typ]


CASES = {
    "a renamed input slot": (lambda b: _ops(b, "reduce_mean")[0]["inputs"].update(y=_ops(b, "reduce_mean")[0]["inputs"].pop("X")),
                             r"input slot 'y' is not one of"),
    "a renamed output slot": (lambda b: _ops(b, "matmul")[0]["outputs"].update(O9t=_ops(b, "matmul")[0]["outputs"].pop("Out")),
                              r"output slot 'O9t'"),
    "a missing attribute": (lambda b: _ops(b, "while")[0]["attrs"].pop("carry_out"), r"\['carry_out'\] missing"),
    "an unknown dtype": (lambda b: _ops(b, "fill_constant")[0]["attrs"].update(dtype="snt64"), r"attribute 'dtype'"),
    "a sub-block pointing back": (lambda b: _ops(b, "while")[0]["attrs"].update(sub_block={"block": 0}),
                                  r"block reference 0|sub-block listed after"),
    "a carry naming another variable": (lambda b: _ops(b, "while")[0]["inputs"]["X"].__setitem__(-1, "n"),
                                        r"loop carry"),
    "an attribute of the wrong kind": (lambda b: _ops(b, "getitem")[0]["attrs"].update(spec=7), r"attribute 'spec' should be list"),
    "an output of the wrong shape": (lambda b: [v.update(shape=[-1, 44]) for blk in b for v in blk["vars"]
                                                if v["name"] == _ops(b, "while")[0]["outputs"]["Out"][-1]],
                                     r"declared float32\[-1, 44\]"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_corrupted_op_is_a_format_error_naming_the_file(case, saved, tmp_path):
    files, feeds = saved
    edit, message = CASES[case]
    with pytest.raises(ProgramFormatError, match=message) as err:
        _load_and_run(files, _edit(files, edit), str(tmp_path), feeds)
    assert "bad.pdmodel" in str(err.value)


def _one_byte_corruptions(files, feeds, folder, seed, count):
    orig = files[".pdmodel"]
    rng = random.Random(seed)
    ref = _load_and_run(files, orig, folder, feeds)
    assert ref
    for _ in range(count):
        data = bytearray(orig)
        pos = rng.randrange(len(data))
        data[pos] = rng.choice(b'0123456789abcdefghijklmnopqrstuvwxyz_[]{}",:.-XYZ ')
        try:
            _load_and_run(files, bytes(data), folder, feeds)
        except ProgramFormatError as e:
            assert "bad.pdmodel" in str(e), str(e)
        except Exception as e:  # noqa: BLE001 - the point: nothing else may escape
            context = bytes(data[max(0, pos - 60):pos + 60])
            raise AssertionError(f"byte {pos} -> {chr(data[pos])!r}: {type(e).__name__}: {e}\n{context!r}") from e


def test_one_byte_corruptions_are_format_errors_or_harmless(saved, tmp_path):
    files, feeds = saved
    _one_byte_corruptions(files, feeds, str(tmp_path), seed=0, count=150)


@pytest.mark.slow
def test_many_one_byte_corruptions_are_format_errors_or_harmless(saved, tmp_path):
    files, feeds = saved
    _one_byte_corruptions(files, feeds, str(tmp_path), seed=1, count=3000)
