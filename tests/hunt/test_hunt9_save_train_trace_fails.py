"""`dy2st.save` traces a Layer in eval mode, and again in train mode to keep what `train()` must run.
When only the train-mode trace failed (code under `if self.training:` that does not convert), the
failure was swallowed and nothing recorded: the loaded model in `train()` ran the eval-mode Program
(`fc(x)` where the Layer computes `fc(x) * 2 + std`) with no warning. Now saving warns, naming the
failure, and `train()` on the loaded model raises instead of computing something else."""
import warnings

import numpy as np
import pytest

import dy2st
import runtime as rt
from dy2st import InputSpec


class NumpyInTraining(rt.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = rt.nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        if self.training:
            h = h * 2 + float(np.asarray(h.numpy()).std())
        return h


def test_a_failed_train_trace_warns_and_the_loaded_model_refuses_train(tmp_path):
    net = NumpyInTraining()
    path = str(tmp_path / "m")
    with pytest.warns(UserWarning, match="could not be traced in train mode") as record:
        dy2st.save(net, path, input_spec=[InputSpec([None, 3], "float32")])
    assert any(r.filename == __file__ for r in record)
    loaded = dy2st.load(path)
    net.eval()
    for n in (1, 4):
        x = rt.to_tensor(np.random.default_rng(n).normal(size=(n, 3)).astype("float32"))
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
    loaded.train()
    with pytest.raises(RuntimeError, match="could not be traced in train mode"):
        loaded(x)


def test_a_layer_that_traces_in_both_modes_saves_without_warning(tmp_path):
    net = rt.nn.Sequential(rt.nn.Linear(3, 3), rt.nn.Dropout(0.5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dy2st.save(net, str(tmp_path / "m"), input_spec=[InputSpec([None, 3], "float32")])
    loaded = dy2st.load(str(tmp_path / "m"))
    loaded.train()
    assert loaded(rt.ones([2, 3])).shape == [2, 3]
