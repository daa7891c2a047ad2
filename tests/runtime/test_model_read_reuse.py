"""A model read again unchanged is not validated again (``formats.io`` remembers the digests of
files that passed), yet every read gives fresh objects and changed bytes are checked in full."""
import json

import numpy as np
import pytest

import runtime as rt
from runtime.framework import static_mode_guard
from runtime.static.formats import io as sio
from runtime.static.formats import program_format


def _save(prefix):
    main, startup = rt.static.Program(), rt.static.Program()
    with rt.static.program_guard(main, startup), static_mode_guard(True):
        x = rt.static.data("x", [None, 3], "float32")
        h = rt.static.nn.fc(x, 2)
        out = rt.static.nn.cond(rt.mean(h) > 0.0, lambda: h * 2.0, lambda: -h)
    exe = rt.static.Executor()
    exe.run(startup)
    sio.save_inference_model(prefix, [x], [out], exe, program=main)


def _run(prefix, feed):
    program, _, fetches = sio.load_inference_model(prefix)
    return program, rt.static.Executor().run(program, feed={"x": feed}, fetch_list=fetches)[0]


def test_second_read_skips_checks_but_builds_the_same_fresh_model(tmp_path, monkeypatch):
    prefix = str(tmp_path / "m")
    _save(prefix)
    feed = np.arange(6, dtype="float32").reshape(2, 3)
    first, want = _run(prefix, feed)
    checked = []
    real = program_format.check_op
    monkeypatch.setattr(program_format, "check_op", lambda *a: checked.append(a[0]) or real(*a))
    second, got = _run(prefix, feed)
    assert checked == []  # the unchanged files were validated by the first read
    assert second is not first and second.global_block().ops[0] is not first.global_block().ops[0]
    assert sio.serialize_program(second) == sio.serialize_program(first)
    np.testing.assert_array_equal(got, want)
    # fresh parameters too: changing the first model's never reaches the second
    name = next(n for n, t in first.bound_tensors.items() if np.any(t.numpy()))  # the weight, not the zero bias
    first.bound_tensors[name].set_value(np.zeros(first.bound_tensors[name].shape, "float32"))
    assert np.any(second.bound_tensors[name].numpy())


def test_changed_bytes_are_validated_again(tmp_path):
    prefix = str(tmp_path / "m")
    _save(prefix)
    sio.read_inference_model(prefix)
    data = json.load(open(prefix + ".pdmodel"))
    data["program"]["blocks"][0]["ops"][0]["type"] = "exec_python"
    json.dump(data, open(prefix + ".pdmodel", "w"))
    with pytest.raises(sio.ProgramFormatError, match=r"m\.pdmodel.*'exec_python' is not registered"):
        sio.read_inference_model(prefix)
