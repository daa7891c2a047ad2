"""Saving an inference model over an existing one is atomic (runtime.static.formats.io): a write
that fails, or a crash while writing or between the renames, leaves the previous model loadable.
Uses the ``built``/``saved`` fixtures of test_program_io.py.
"""
import os

import numpy as np
import pytest

import runtime as rt
from runtime.static.formats import io as sio
from tests.runtime.test_program_io import built, saved  # noqa: F401  (fixtures)


# -- atomic writes -------------------------------------------------------------------
def _snapshot(prefix):
    return {s: open(prefix + s, "rb").read() for s in (".pdmodel", ".pdiparams", ".pdiparams.info")}


def _resave_changed(built, prefix):
    main, x, out, exe = built
    for name, t in list(main.bound_tensors.items()):
        t._value = t._value + 1
    scope = rt.static.global_scope()
    sio.save_inference_model(prefix, [x], [out], exe, program=main,
                             params={k: np.asarray(v) + 1 for k, v in scope.items()})


def test_failed_replace_keeps_previous_model(saved, built, monkeypatch):
    prefix, feed, ref = saved
    before = _snapshot(prefix)

    def broken_replace(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(sio.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        _resave_changed(built, prefix)
    monkeypatch.undo()
    assert _snapshot(prefix) == before
    assert sorted(os.listdir(os.path.dirname(prefix))) == ["model.pdiparams", "model.pdiparams.info", "model.pdmodel"]
    program, _, fetch = sio.load_inference_model(prefix)
    np.testing.assert_allclose(rt.static.Executor().run(program, feed=feed, fetch_list=fetch)[0], ref, rtol=1e-6)


def test_crash_while_writing_keeps_previous_model(saved, built, monkeypatch):
    prefix = saved[0]
    before = _snapshot(prefix)
    calls = []
    real_fsync = os.fsync

    def crash_on_second(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise KeyboardInterrupt("killed mid-save")
        real_fsync(fd)
    monkeypatch.setattr(sio.os, "fsync", crash_on_second)
    with pytest.raises(KeyboardInterrupt):
        _resave_changed(built, prefix)
    monkeypatch.undo()
    assert _snapshot(prefix) == before
    assert not [f for f in os.listdir(os.path.dirname(prefix)) if f.endswith(".tmp")]


def test_crash_between_renames_keeps_the_previous_model_loadable(saved, built, monkeypatch):
    prefix, feed, ref = saved
    real_replace = os.replace

    def crash_before_model(src, dst):
        if dst.endswith(".pdmodel"):
            raise OSError("power cut")
        real_replace(src, dst)
    monkeypatch.setattr(sio.os, "replace", crash_before_model)
    with pytest.raises(OSError):
        _resave_changed(built, prefix)
    monkeypatch.undo()
    # the main set is mixed (new params, old model): the kept previous set is read instead
    with pytest.warns(RuntimeWarning, match="different saves.*previous complete save"):
        program, _, fetch = sio.load_inference_model(prefix)
    np.testing.assert_allclose(rt.static.Executor().run(program, feed=feed, fetch_list=fetch)[0], ref, rtol=1e-6)
    # without the kept set, the mix is still detected, never loaded
    hidden = [f for f in os.listdir(os.path.dirname(prefix)) if f.startswith(".model.previous")]
    assert sorted(hidden) == [".model.previous.pdiparams", ".model.previous.pdiparams.info",
                              ".model.previous.pdmodel"]
    backup = sio.backup_prefix(prefix)
    os.rename(backup + ".pdmodel", backup + ".moved")
    with pytest.raises(sio.ProgramFormatError, match="different saves"):
        sio.load_inference_model(prefix)
    os.rename(backup + ".moved", backup + ".pdmodel")
    # the next complete save replaces the mix and removes the kept set
    _resave_changed(built, prefix)
    assert sorted(os.listdir(os.path.dirname(prefix))) == ["model.pdiparams", "model.pdiparams.info", "model.pdmodel"]
    program, _, fetch = sio.load_inference_model(prefix)
    assert not np.allclose(rt.static.Executor().run(program, feed=feed, fetch_list=fetch)[0], ref)
