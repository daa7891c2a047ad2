"""What save/load/export skip doing twice still gives the same results: a stored train-mode
Program is validated at load and compiled on the first train() call; exporting a just-loaded
prefix reuses its validation yet writes the same ONNX model."""
import json
import logging

import numpy as np
import pytest

import dy2st
import runtime as rt
from runtime.static.formats.io import ProgramFormatError


def _bn_model(tmp_path):
    rt.seed(0)
    layer = rt.nn.Sequential(rt.nn.Linear(3, 2), rt.nn.BatchNorm1D(2))
    prefix = str(tmp_path / "m")
    dy2st.save(layer, prefix, input_spec=[dy2st.InputSpec([None, 3], "float32")])
    return layer, prefix


def test_train_program_is_compiled_on_first_train_call_and_runs_like_the_layer(tmp_path):
    layer, prefix = _bn_model(tmp_path)
    loaded = dy2st.load(prefix)
    assert loaded._train is not None and loaded._train._partial is None  # nothing compiled for eval use
    x = rt.to_tensor(np.random.RandomState(0).randn(5, 3).astype("float32"))
    layer.train()
    loaded.train()
    np.testing.assert_allclose(loaded(x).numpy(), layer(x).numpy(), rtol=1e-5, atol=1e-6)
    assert loaded._train._partial is not None


def test_malformed_train_program_fails_at_load(tmp_path):
    _, prefix = _bn_model(tmp_path)
    model = json.load(open(prefix + ".pdmodel"))
    ops = model["metadata"]["train_program"]["blocks"][0]["ops"]
    ops.reverse()  # every op still registry-valid, but values are read before they are made
    json.dump(model, open(prefix + ".pdmodel", "w"))
    with pytest.raises(ProgramFormatError, match=r"m\.pdmodel: metadata 'train_program'"):
        dy2st.load(prefix)


def test_export_of_a_loaded_prefix_equals_a_fresh_export(tmp_path):
    pytest.importorskip("onnx")
    _, prefix = _bn_model(tmp_path)
    fresh = dy2st.export_onnx(prefix, str(tmp_path / "a.onnx")).SerializeToString()  # validates the files
    dy2st.load(prefix)
    again = dy2st.export_onnx(prefix, str(tmp_path / "b.onnx")).SerializeToString()  # reuses that
    assert again == fresh


@pytest.mark.parametrize("make, differs", [(lambda: rt.nn.Sequential(rt.nn.Linear(3, 2), rt.nn.ReLU()), False),
                                           (lambda: rt.nn.Sequential(rt.nn.Linear(3, 2), rt.nn.Dropout(0.5)), True)])
def test_train_mode_comparison(tmp_path, make, differs):
    prefix = str(tmp_path / "m")
    dy2st.save(make(), prefix, input_spec=[dy2st.InputSpec([None, 3], "float32")])
    assert json.load(open(prefix + ".pdmodel"))["metadata"]["train_differs"] is differs


_LIBRARY_MODELS = {
    "mlp": lambda: rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.ReLU(), rt.nn.Linear(4, 2), rt.nn.Tanh()),
    "norm": lambda: rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.LayerNorm(4)),
    "dropout": lambda: rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.Dropout(0.5)),
    "batchnorm": lambda: rt.nn.Sequential(rt.nn.Linear(3, 4), rt.nn.BatchNorm1D(4)),
}


@pytest.mark.parametrize("name", sorted(_LIBRARY_MODELS))
def test_mode_free_library_models_trace_the_same_program_in_train_mode(name):
    """What `mode_free` lets save skip (the train-mode trace) would have given the eval Program."""
    from dy2st.deploy.io import _static_function_of
    from dy2st.deploy.mode_check import _same_ops, mode_free

    layer = _LIBRARY_MODELS[name]()
    sf = _static_function_of(layer, None)
    spec = dy2st.InputSpec([None, 3], "float32")
    programs = []
    for train in (False, True):
        layer.train() if train else layer.eval()
        programs.append(sf.get_concrete_program(spec).main_program)
    assert mode_free(sf, layer) is (name in ("mlp", "norm"))
    if mode_free(sf, layer):
        assert _same_ops(*programs)
    else:
        assert not _same_ops(*programs)


def test_mode_free_model_is_saved_with_one_trace_and_fine_tunes(tmp_path, caplog):
    rt.seed(0)
    layer = _LIBRARY_MODELS["mlp"]()
    sf = dy2st.to_static(layer).forward
    prefix = str(tmp_path / "m")
    with caplog.at_level(logging.INFO, logger="dy2st"):
        dy2st.save(layer, prefix, input_spec=[dy2st.InputSpec([None, 3], "float32")])
    built = [r for r in caplog.records if r.getMessage().startswith("building a Program")]
    assert len(built) == 1 and "training=False" in built[0].getMessage()  # the eval-mode trace only
    assert len(sf.program_cache) == 0  # (into save's own cache)
    loaded = dy2st.load(prefix).train()
    x = rt.to_tensor(np.random.RandomState(1).randn(4, 3).astype("float32"))
    layer.train()
    np.testing.assert_allclose(loaded(x).numpy(), layer(x).numpy(), rtol=1e-6)
